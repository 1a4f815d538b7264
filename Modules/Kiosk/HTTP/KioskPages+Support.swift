#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import Logging
import NIOCore

/// What every handler shares: finding the browser, checking a POST, answering.
extension KioskPages {
    /// The browser's binding, when its cookie names one. A session that expired meanwhile is
    /// abandoned here.
    func browser(_ request: Request) async -> BrowserBindings.Found? {
        let token = request.cookie(named: KioskApplication.cookieName)
        guard let found = bindings.lookup(token) else { return nil }
        if let expired = found.expired {
            await abandon([expired], why: "no request for \(settings.sessionExpirySeconds) s")
        }
        return found
    }

    /// Runs `body` for a POST from a known browser with a readable form carrying the current
    /// CSRF token. A form carrying the previous token (posted twice across the start or end of a
    /// session) is stale and goes to the page the browser should see now.
    func post(
        _ request: Request,
        fields: Set<String>,
        repeatable: Set<String> = [],
        _ body: (BrowserBindings.Found, FormBody) async -> Response
    ) async -> Response {
        guard let found = await browser(request) else {
            logger.notice("kiosk: POST from a browser without a known cookie", metadata: ["path": "\(request.uri.path)"])
            return forbidden(language: settings.defaultLanguage)
        }
        let form: FormBody
        do {
            form = try await readForm(request, fields: fields, repeatable: repeatable)
        } catch {
            return page(renderer.message(.badRequest(error.error.description), language: found.binding.language), status: error.status)
        }
        let csrf = form.value("csrf") ?? ""
        if KioskToken.matches(csrf, found.binding.csrf) {
            return await body(found, form)
        }
        if let previous = found.binding.previousCSRF, KioskToken.matches(csrf, previous) {
            return redirect(to: Self.currentPage(found.binding))
        }
        logger.notice("kiosk: POST without the browser's CSRF token", metadata: ["path": "\(request.uri.path)", "given": "\(csrf.isEmpty ? "none" : "wrong")"])
        return forbidden(language: found.binding.language)
    }

    /// The body of a form POST, read strictly.
    func readForm(_ request: Request, fields: Set<String>, repeatable: Set<String>) async throws(KioskFormError) -> FormBody {
        let type = request.headers[.contentType] ?? ""
        guard FormBody.isFormMediaType(type) else {
            throw KioskFormError(status: .unsupportedMediaType, error: FormBodyError("send the form as application/x-www-form-urlencoded, not \(type.isEmpty ? "without a Content-Type" : "\"\(type.prefix(60))\"")"))
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: settings.maxFormBytes)
        } catch {
            throw KioskFormError(status: .contentTooLarge, error: FormBodyError("the form is larger than \(settings.maxFormBytes) bytes"))
        }
        do {
            return try FormBody.parse(buffer.readableBytesView, allowed: fields, repeatable: repeatable)
        } catch {
            throw KioskFormError(status: .badRequest, error: error)
        }
    }

    /// Where a view sends the browser: the question, or (detaching the session) the end screen.
    func moveOn(_ view: RespondentView, found: BrowserBindings.Found) -> Response {
        guard case .closed(let outcome) = view.state else { return redirect(to: "/question") }
        let shown: KioskOutcome? = outcome == .abandoned ? nil : outcome
        bindings.detach(view.session, from: found.token, ended: shown)
        return redirect(to: shown == nil ? "/" : "/end")
    }

    /// A domain error as a page: an unknown or closed session sends the browser to the start.
    func failed(_ error: KioskError, found: BrowserBindings.Found, session: KioskSessionID) -> Response {
        switch error.kind {
        case .noSuchSession, .sessionClosed:
            logger.info("kiosk: session gone", metadata: ["code": "\(error.code)", "error": "\(error.message)"])
            bindings.detach(session, from: found.token, ended: nil)
            return redirect(to: "/")
        case .questionChanged:
            return redirect(to: "/question")
        case .unavailable:
            logger.warning("kiosk: the session logic is unavailable", metadata: ["error": "\(error.message)"])
            return unavailable(language: found.binding.language)
        }
    }

    func abandon(_ sessions: [KioskSessionID], why: String) async {
        for session in sessions {
            do {
                try await backend.abandon(session: session)
                logger.info("kiosk: session abandoned", metadata: ["reason": "\(why)"])
            } catch {
                logger.warning("kiosk: cannot abandon a session", metadata: ["reason": "\(why)", "error": "\(error)"])
            }
        }
    }

    static func currentPage(_ binding: BrowserBindings.Binding) -> String {
        if binding.session != nil { return "/question" }
        if binding.consent != nil { return "/consent" }
        if binding.declined { return "/declined" }
        return binding.ended == nil ? "/" : "/end"
    }

    // MARK: Responses

    func html(_ text: String, cookie token: String? = nil) -> Response {
        var response = page(text, status: .ok)
        if let token { response.setCookie(cookie(token)) }
        return response
    }

    func page(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// 303 See Other: the browser GETs `path` (POST, then redirect to GET).
    func redirect(to path: String) -> Response {
        Response(status: .seeOther, headers: [.location: path, .cacheControl: "no-store"])
    }

    func forbidden(language: KioskLanguage) -> Response {
        page(renderer.message(.expired, language: language), status: .forbidden)
    }

    func badRequest(_ error: FormBodyError, language: KioskLanguage) -> Response {
        page(renderer.message(.badRequest(error.description), language: language), status: .badRequest)
    }

    func unavailable(language: KioskLanguage) -> Response {
        var response = page(renderer.message(.unavailable, language: language), status: .serviceUnavailable)
        response.headers[.retryAfter] = "30"
        return response
    }

    func cookie(_ token: String) -> Cookie {
        Cookie(name: KioskApplication.cookieName, value: token, path: "/", secure: settings.secureCookie, httpOnly: true, sameSite: .strict)
    }

    /// A static asset, with a long cache lifetime and `304 Not Modified` for a matching ETag.
    static func serve(_ asset: KioskAssets.Asset, _ request: Request) -> Response {
        var headers: HTTPFields = [.contentType: asset.contentType, .cacheControl: KioskAssets.cacheControl, .eTag: asset.etag]
        if let policy = asset.contentSecurityPolicy { headers[.contentSecurityPolicy] = policy }
        if request.headers[.ifNoneMatch] == asset.etag {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }
}

/// A form that cannot be read, with the status it is answered with.
struct KioskFormError: Error, Sendable {
    var status: HTTPResponse.Status
    var error: FormBodyError
}

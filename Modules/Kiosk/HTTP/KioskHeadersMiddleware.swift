import HTTPTypes
import Hummingbird
import Logging

/// Puts the security headers on every response of the kiosk, and turns errors that reach it
/// (an unknown path, a body too large) into pages.
struct KioskHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let renderer: KioskRenderer
    let language: KioskLanguage
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            let message: KioskRenderer.Message = error.status == .notFound ? .notFound : .badRequest("\(error.status.code) \(error.status.reasonPhrase)")
            response = Response(
                status: error.status,
                headers: [.contentType: "text/html; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: renderer.message(message, language: language)))
            )
        } catch {
            logger.error("kiosk: a request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            response = Response(
                status: .internalServerError,
                headers: [.contentType: "text/html; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: renderer.message(.unavailable, language: language)))
            )
        }
        KioskSecurityHeaders.apply(to: &response.headers)
        return response
    }
}

/// The headers every kiosk response carries.
enum KioskSecurityHeaders {
    /// Self only: no inline script or style, no frames, forms post to the kiosk only.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let frameOptions = HTTPField.Name("X-Frame-Options")!

    /// The fields, made (and their values checked) once rather than for every response.
    static let fields: [HTTPField] = [
        HTTPField(name: .xContentTypeOptions, value: "nosniff"),
        HTTPField(name: .contentSecurityPolicy, value: contentSecurityPolicy),
        HTTPField(name: referrerPolicy, value: "no-referrer"),
        HTTPField(name: frameOptions, value: "DENY"),
    ]
    static let noStore = HTTPField(name: .cacheControl, value: "no-store")

    /// Adds them (no route sets any of them itself, but an SVG logo its own, stricter policy); a
    /// response without its own `Cache-Control` gets `no-store`.
    static func apply(to headers: inout HTTPFields) {
        if headers[.contentSecurityPolicy] == nil {
            headers.append(contentsOf: fields)
        } else {
            headers.append(contentsOf: fields.filter { $0.name != .contentSecurityPolicy })
        }
        if headers[.cacheControl] == nil { headers.append(noStore) }
    }
}

import Foundation
public import Hummingbird
public import HummingbirdTesting
public import Kiosk
import Logging
import Synchronization

/// A page as a browser got it.
public struct Page {
    public var status: HTTPResponse.Status
    public var headers: HTTPFields
    public var body: String
    /// The paths of the redirects followed to reach it.
    public var redirects: [String] = []

    /// The value of the hidden field `name` in the form with id `formID` (or the first form).
    public func hidden(_ name: String, in formID: String = "answer-form") -> String? {
        var scope = body[...]
        if let start = body.range(of: "id=\"\(formID)\"") {
            scope = body[start.lowerBound...]
            if let end = scope.range(of: "</form>") { scope = scope[..<end.lowerBound] }
        }
        let pattern = "<input type=\"hidden\" name=\"\(name)\" value=\""
        guard let start = scope.range(of: pattern) else { return nil }
        let rest = scope[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return Page.unescape(String(rest[..<end]))
    }

    /// The question page's form name.
    public var question: String? { hidden("question") }
    public var position: Int? { hidden("position").flatMap { Int($0) } }
    public var csrf: String? { hidden("csrf", in: "answer-form") ?? hidden("csrf", in: "reset-form") }

    public func contains(_ text: String) -> Bool { body.contains(text) }

    /// The number of times `text` occurs.
    public func count(_ text: String) -> Int { body.components(separatedBy: text).count - 1 }

    /// The text of the element with id `answer-error`, if shown.
    public var error: String? {
        guard let start = body.range(of: "id=\"answer-error\" class=\"error\" role=\"alert\">") else { return nil }
        let rest = body[start.upperBound...]
        guard let end = rest.range(of: "</p>") else { return nil }
        return Page.unescape(String(rest[..<end.lowerBound]))
    }

    public static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// One browser talking to the kiosk: it keeps its cookies (each sent to the paths under its
/// `Path`, dropped by `Max-Age=0`) and follows redirects, as a browser does.
public final class TestBrowser {
    public let client: any TestClientProtocol
    /// The cookies kept, by name: the value and the path they are sent to.
    public var cookies: [String: (value: String, path: String)] = [:]
    /// The browser's own cookie (`kiosk`).
    public var cookie: String? {
        get { cookies[KioskApplication.cookieName]?.value }
        set { cookies[KioskApplication.cookieName] = newValue.map { ($0, "/") } }
    }
    /// The staff cookie, while the browser has one.
    public var staffCookie: String? {
        get { cookies[KioskApplication.staffCookieName]?.value }
        set { cookies[KioskApplication.staffCookieName] = newValue.map { ($0, "/staff") } }
    }
    /// Headers sent with every request (e.g. the client's address, where the test router reads it).
    public var headers: HTTPFields = [:]
    /// Every `Set-Cookie` value received, in order.
    public var setCookies: [String] = []
    public private(set) var page: Page

    public init(_ client: any TestClientProtocol) {
        self.client = client
        page = Page(status: .ok, headers: [:], body: "")
    }

    /// GETs `path`, following redirects.
    @discardableResult
    public func open(_ path: String) async throws -> Page {
        try await follow(try await send(path, method: .get))
    }

    /// POSTs `fields` to `path` (form-encoded), following the redirect.
    @discardableResult
    public func post(_ path: String, _ fields: [(String, String)], contentType: String = "application/x-www-form-urlencoded") async throws -> Page {
        let body = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return try await follow(try await send(path, method: .post, body: body, contentType: contentType))
    }

    /// POSTs a raw body without following anything.
    public func postRaw(_ path: String, body: String, contentType: String? = "application/x-www-form-urlencoded") async throws -> TestResponse {
        try await send(path, method: .post, body: body, contentType: contentType)
    }

    /// Answers the question on the page with `values` (and the free text of "Other").
    @discardableResult
    public func answer(_ values: [String], extra: String? = nil) async throws -> Page {
        let current = page
        var fields = [("csrf", current.csrf ?? ""), ("question", current.question ?? ""), ("position", String(current.position ?? 0))]
        fields += values.map { ("value", $0) }
        if let extra { fields.append(("extra", extra)) }
        return try await post("/answer", fields)
    }

    @discardableResult
    public func answer(_ value: String) async throws -> Page { try await answer([value]) }

    @discardableResult
    public func skip() async throws -> Page {
        try await post("/skip", [("csrf", page.csrf ?? ""), ("question", page.question ?? ""), ("position", String(page.position ?? 0))])
    }

    @discardableResult
    public func back() async throws -> Page {
        try await post("/back", [("csrf", page.csrf ?? ""), ("question", page.question ?? ""), ("position", String(page.position ?? 0))])
    }

    /// Opens the welcome screen and starts a session in `language`.
    @discardableResult
    public func start(_ language: KioskLanguage = .en) async throws -> Page {
        let welcome = try await open("/?lang=\(language.rawValue)")
        return try await post("/start", [("csrf", welcome.hidden("csrf", in: "start-form") ?? ""), ("lang", language.rawValue)])
    }

    public func send(_ path: String, method: HTTPRequest.Method, body: String? = nil, contentType: String? = nil) async throws -> TestResponse {
        var headers = self.headers
        let sent = cookies.filter { Self.path(path, isUnder: $0.value.path) }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.value)" }
        if !sent.isEmpty { headers[.cookie] = sent.joined(separator: "; ") }
        if let contentType, body != nil { headers[.contentType] = contentType }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        for value in response.headers[values: .setCookie] {
            setCookies.append(value)
            keep(value)
        }
        return response
    }

    /// Keeps (or drops) the cookie of a `Set-Cookie` value.
    private func keep(_ setCookie: String) {
        let parts = setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return }
        let name = String(pair[..<equals])
        let value = String(pair[pair.index(after: equals)...])
        var path = "/"
        var expired = value.isEmpty
        for attribute in parts.dropFirst() {
            let lowered = attribute.lowercased()
            if lowered.hasPrefix("path=") { path = String(attribute.dropFirst(5)) }
            if lowered == "max-age=0" { expired = true }
        }
        cookies[name] = expired ? nil : (value, path)
    }

    /// Whether a cookie with `Path=cookiePath` is sent to `requestPath` (RFC 6265, 5.1.4).
    static func path(_ requestPath: String, isUnder cookiePath: String) -> Bool {
        let path = requestPath.split(separator: "?", maxSplits: 1).first.map(String.init) ?? requestPath
        if path == cookiePath || cookiePath == "/" { return true }
        return path.hasPrefix(cookiePath.hasSuffix("/") ? cookiePath : cookiePath + "/")
    }

    private func follow(_ first: TestResponse) async throws -> Page {
        var response = first
        var redirects: [String] = []
        while response.status == .seeOther, let location = response.headers[.location], redirects.count < 5 {
            redirects.append(location)
            response = try await send(location, method: .get)
        }
        page = Page(status: response.status, headers: response.headers, body: String(buffer: response.body), redirects: redirects)
        return page
    }

    public static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// A clock the tests move by hand.
public final class ManualClock: Sendable {
    public init() {}
    private let base = ContinuousClock.now
    private let offset = Mutex(Duration.zero)

    public func now() -> ContinuousClock.Instant { base + offset.withLock { $0 } }
    public func advance(by duration: Duration) { offset.withLock { $0 += duration } }
}

public import Foundation

/// A browser on the kiosk pages of a running surveyd, over plain HTTP/1.1 on loopback, as a
/// browser without script: it keeps its cookie, follows redirects and posts the forms with their
/// CSRF token and the question they answer. A page that does not come as a browser would get it
/// throws ``KioskVisitor/Failure``.
public final class KioskVisitor: @unchecked Sendable {
    public let port: Int
    public var cookie: String?
    /// The page shown now.
    public var page = ""

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        /// The status of the reply that was not a redirect, when there was one.
        public var status: Int?
    }

    /// - Parameter url: the kiosk's URL as the daemon printed it (`http://127.0.0.1:PORT/`).
    public init(url: String) throws {
        guard let port = Int(url.split(separator: ":").last?.filter(\.isNumber) ?? "") else { throw Failure(description: "no port in the kiosk url \(url)") }
        self.port = port
    }

    /// Opens `path`, following up to 5 redirects.
    @discardableResult
    public func open(_ path: String) async throws -> String {
        var reply = try await send("GET", path)
        for _ in 0..<5 where reply.status == 303 {
            guard let location = reply.headers["location"] else { break }
            reply = try await send("GET", location)
        }
        page = reply.bodyText
        return page
    }

    /// Posts a form and opens the page it redirects to.
    @discardableResult
    public func post(_ path: String, _ fields: [(String, String)]) async throws -> String {
        let body = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        let reply = try await send("POST", path, body: body)
        guard reply.status == 303, let location = reply.headers["location"] else {
            throw Failure(description: "POST \(path): \(reply.status) \(reply.bodyText.prefix(300))", status: reply.status)
        }
        return try await open(location)
    }

    /// Opens the welcome screen and starts a session in English.
    public func start() async throws {
        try await open("/?lang=en")
        try await post("/start", [("csrf", hidden("csrf", in: "start-form") ?? ""), ("lang", "en")])
    }

    /// Answers the question shown.
    public func answer(_ value: String) async throws {
        try await post("/answer", [("csrf", hidden("csrf") ?? ""), ("question", hidden("question") ?? ""), ("position", hidden("position") ?? ""), ("value", value)])
    }

    /// Starts over: the "Are you still there?" countdown ran out, or the respondent left.
    public func reset() async throws {
        try await post("/reset", [("csrf", hidden("csrf", in: "answer-form") ?? hidden("csrf", in: "reset-form") ?? "")])
    }

    /// The hidden field `name` of the form with id `formID`.
    public func hidden(_ name: String, in formID: String = "answer-form") -> String? {
        var scope = page[...]
        if let start = page.range(of: "id=\"\(formID)\"") {
            scope = page[start.lowerBound...]
            if let end = scope.range(of: "</form>") { scope = scope[..<end.lowerBound] }
        }
        guard let start = scope.range(of: "<input type=\"hidden\" name=\"\(name)\" value=\"") else { return nil }
        let rest = scope[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]).replacingOccurrences(of: "&amp;", with: "&") }
    }

    public func send(_ method: String, _ target: String, body: String? = nil) async throws -> UnixHTTP.Reply {
        let reply = try await LoopbackHTTP.request(
            port: port, method: method, target: target, body: body, contentType: "application/x-www-form-urlencoded",
            headers: cookie.map { ["Cookie": "kiosk=\($0)"] } ?? [:], deadline: 30)
        if let set = reply.headers["set-cookie"], let pair = set.split(separator: ";").first, pair.hasPrefix("kiosk=") {
            cookie = String(pair.dropFirst("kiosk=".count))
        }
        return reply
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

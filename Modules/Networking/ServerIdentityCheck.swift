#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Logging

/// Something that stands between surveyd and the survey server: a captive portal's login page,
/// a redirect, a `511`, a TLS certificate for another name, or a certificate that this device's
/// clock cannot check.
public struct PortalSighting: Sendable, Hashable {
    /// What stands in the way.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Something else answers in the server's place (a captive portal, a proxy, a redirect,
        /// a TLS certificate for another name or one no trusted authority signed).
        case portal
        /// The server's certificate is not valid yet, or expired while the wall clock is earlier
        /// than this build's date: the clock was never set (a Raspberry Pi before NTP).
        case clockNotSet = "clock_not_set"
        /// The server's certificate expired, and the wall clock is plausible.
        case certificateExpired = "certificate_expired"
    }

    /// What answered, in words, e.g. `200 text/html: 1234 bytes beginning "<html>…"`.
    public var answer: String
    /// Where a redirect pointed, when the answer was one.
    public var redirect: String?
    /// When it was first seen (this run of it).
    public var since: Date
    public var kind: Kind
    /// The HTTP status that answered, when there was one.
    public var status: Int?

    public init(answer: String, redirect: String? = nil, since: Date, kind: Kind = .portal, status: Int? = nil) {
        self.answer = answer
        self.redirect = redirect
        self.since = since
        self.kind = kind
        self.status = status
    }

    /// A `401` or `403` that was not the server's own refusal in its JSON form may still be the
    /// server refusing the token in a form surveyd does not expect.
    public var mayBeTokenRefusal: Bool { kind == .portal && (status == 401 || status == 403) }
}

/// What a check that the survey server itself answers came to.
public enum ServerIdentity: Sendable, Hashable {
    /// The server answered in the contract's envelope (or as the server does: a refusal of its own).
    case server
    /// Something else answered in its place.
    case notTheServer(answer: String, redirect: String?)
    /// The TLS handshake failed on the certificate's dates: `clockNotSet` or `certificateExpired`.
    case certificate(PortalSighting.Kind, answer: String)
    /// Nothing answered (connection failed, timed out).
    case unreachable
}

/// Asks the survey server for something only it answers with, to tell it from a captive portal.
/// The connectivity monitor runs it instead of trusting a TCP connect while something else has
/// been answering in the server's place.
public protocol ServerIdentityCheck: Sendable {
    func identify() async -> ServerIdentity
}

/// The check by `GET /api/question/{stage}` (the contract has no lighter endpoint): the
/// questionnaire envelope, or the server's own refusal in JSON, means the survey server; a
/// redirect (never followed), a `511`, a 4xx page that is not JSON, a 2xx body that is not the
/// envelope or a TLS certificate for another name mean something else answers.
public struct QuestionnaireIdentityCheck: ServerIdentityCheck {
    let transport: any HTTPTransport
    let configuration: SurveyClientConfiguration
    let token: BearerTokenFile
    let stage: String
    let lang: String
    let logger: Logger

    public init(transport: any HTTPTransport, configuration: SurveyClientConfiguration, token: BearerTokenFile, stage: String, lang: String, logger: Logger = Logger(label: "surveyd.connectivity")) {
        self.logger = logger
        self.transport = transport
        self.configuration = configuration
        self.token = token
        self.stage = stage
        self.lang = lang
    }

    public func identify() async -> ServerIdentity {
        guard let url = try? SurveyClient.buildURL(base: configuration.baseURL, path: "api/question/\(stage)", lang: lang) else { return .unreachable }
        var headers = ["User-Agent": configuration.userAgent, "Accept": "application/json"]
        if let token = try? token.token(reload: false) { headers["Authorization"] = "Bearer \(token)" }
        let response: TransportResponse
        let answered: String
        // At debug level, as every request to the server is (never a body).
        logger.debug("sending a request to the survey server to tell it from a captive portal", metadata: ["method": "GET", "url": "\(url)"])
        do {
            (response, answered) = try await transport.sendFollowingOrigin(
                TransportRequest(method: "GET", url: url, headers: headers), origin: configuration.baseURL, timeout: configuration.readTimeout)
        } catch {
            switch error.obstacle {
            case .portal?: return .notTheServer(answer: error.message, redirect: nil)
            case let kind?: return .certificate(kind, answer: error.message)
            case nil: return .unreachable
            }
        }
        if let elsewhere = ServerReply.elsewhere(response, url: answered, base: configuration.baseURL) {
            return .notTheServer(answer: elsewhere.answer, redirect: elsewhere.redirect)
        }
        // A 4xx is the server's only as its own refusal, in JSON; a portal's 403 or 404 page is not.
        if (400 ..< 500).contains(response.status), response.status != 408, response.status != 429,
           let mismatch = ServerReply.refusalMismatch(response) {
            return .notTheServer(answer: mismatch, redirect: nil)
        }
        guard (200 ..< 300).contains(response.status) else { return .server }
        if let mismatch = ServerReply.questionnaireMismatch(response) { return .notTheServer(answer: mismatch, redirect: nil) }
        return .server
    }
}

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Logging

/// Something that answered in the survey server's place: a captive portal's login page, a
/// redirect, a `511`, a TLS certificate for another name.
public struct PortalSighting: Sendable, Hashable {
    /// What answered, in words, e.g. `200 text/html: 1234 bytes beginning "<html>…"`.
    public var answer: String
    /// Where a redirect pointed, when the answer was one.
    public var redirect: String?
    /// When it was first seen (this run of it).
    public var since: Date

    public init(answer: String, redirect: String? = nil, since: Date) {
        self.answer = answer
        self.redirect = redirect
        self.since = since
    }
}

/// What a check that the survey server itself answers came to.
public enum ServerIdentity: Sendable, Hashable {
    /// The server answered in the contract's envelope (or as the server does: a refusal of its own).
    case server
    /// Something else answered in its place.
    case notTheServer(answer: String, redirect: String?)
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
/// questionnaire envelope means the survey server; a redirect (never followed), a `511`, a body
/// that is not the envelope or a TLS certificate for another name mean something else answers.
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
            if error.code == .notTheServer { return .notTheServer(answer: error.message, redirect: nil) }
            return .unreachable
        }
        if let elsewhere = ServerReply.elsewhere(response, url: answered, base: configuration.baseURL) {
            return .notTheServer(answer: elsewhere.answer, redirect: elsewhere.redirect)
        }
        guard (200 ..< 300).contains(response.status) else { return .server }
        if let mismatch = ServerReply.questionnaireMismatch(response) { return .notTheServer(answer: mismatch, redirect: nil) }
        return .server
    }
}

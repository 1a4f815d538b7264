#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A failed call to the survey server, classified so that the caller knows whether to retry.
///
/// `code` is stable (logs, metrics, the daemon's dead-letter view); `message` says what happened
/// and what the operator can do; `retryAfter` is the server's `Retry-After`, when it sent one.
public struct NetworkError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, stably named.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The connectivity check says the server cannot be reached; no request was sent.
        case offline
        /// The connection could not be made or was lost.
        case connectionFailed = "connection_failed"
        /// Connecting or waiting for the response took too long.
        case timeout
        /// The server answered 408, 429 or 5xx.
        case serverBusy = "server_busy"
        /// The server answered 401 or 403, also after the token was read again.
        case unauthorized
        /// The server answered another 4xx (for example 404: unknown typeID, 400: bad body).
        case rejectedRequest = "rejected_request"
        /// The server answered `isSuccess: false`.
        case rejectedAnswers = "rejected_answers"
        /// The server's body could not be decoded.
        case undecodableResponse = "undecodable_response"
        /// The survey definition in the response has errors.
        case invalidDefinition = "invalid_definition"
        /// The client is configured wrongly (bad base URL, unreadable token file).
        case configuration
        /// Something else answered in the survey server's place (a captive portal's page, a
        /// redirect the client does not follow, `511`, a TLS certificate for another name), or
        /// the connectivity check found it still answering; worth retrying, never a refusal.
        case notTheServer = "not_the_server"
        /// The TLS handshake failed on the server certificate's dates while the wall clock is
        /// earlier than this build's date: the clock was never set. Worth retrying once it is.
        case clockNotSet = "clock_not_set"
        /// The server's certificate expired (the wall clock is plausible): the server must renew
        /// it. Worth retrying; nothing was sent.
        case certificateExpired = "certificate_expired"
    }

    public var code: Code
    /// What happened and what to do.
    public var message: String
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The server's `Retry-After`, when given.
    public var retryAfter: Duration?
    /// The underlying error, when there is one.
    public var cause: (any Error & Sendable)?
    /// Where a redirect pointed, for ``Code/notTheServer``.
    public var redirect: String?

    public init(_ code: Code, _ message: String, status: Int? = nil, retryAfter: Duration? = nil, cause: (any Error & Sendable)? = nil, redirect: String? = nil) {
        self.redirect = redirect
        self.code = code
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
        self.cause = cause
    }

    /// Transient failures are worth retrying later; permanent ones are kept aside.
    public var isTransient: Bool {
        switch code {
        case .offline, .connectionFailed, .timeout, .serverBusy, .notTheServer, .clockNotSet, .certificateExpired: true
        case .unauthorized, .rejectedRequest, .rejectedAnswers, .undecodableResponse, .invalidDefinition, .configuration: false
        }
    }

    /// What stands between surveyd and the server, when the error says something does: a portal,
    /// or a certificate this device's clock or the server's dates make unusable.
    public var obstacle: PortalSighting.Kind? {
        switch code {
        case .notTheServer: .portal
        case .clockNotSet: .clockNotSet
        case .certificateExpired: .certificateExpired
        default: nil
        }
    }

    /// A stable description without dynamic values.
    public var description: String { "NetworkError.\(code.rawValue): \(message)" }

    /// Classifies an HTTP status other than 2xx.
    public static func forStatus(_ status: Int, url: String, retryAfter: Duration?, body: String) -> NetworkError {
        let excerpt = body.prefix(200)
        switch status {
        case 408, 429, 500 ... 599:
            return NetworkError(.serverBusy, "The survey server answered \(status) for \(url); this is temporary, the call will be retried later\(retryAfter.map { " (the server asked to wait \($0))" } ?? ""). If it persists, check the server's health. Body: \(excerpt)", status: status, retryAfter: retryAfter)
        case 401, 403:
            return NetworkError(.unauthorized, "The survey server answered \(status) for \(url) (after reading the token file again, when one is configured); put a valid bearer token in the token file named in the configuration.", status: status)
        default:
            return NetworkError(.rejectedRequest, "The survey server rejected \(url) with \(status); retrying the same request will not help. Check the typeID, language and answers. Body: \(excerpt)", status: status)
        }
    }
}

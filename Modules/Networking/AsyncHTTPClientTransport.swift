public import AsyncHTTPClient
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import NIOCore
import NIOHTTP1
import NIOSSL

/// The real transport, on AsyncHTTPClient (never URLSession: FoundationNetworking on Linux has open
/// hang and crash reports). Connection failures and timeouts become `NetworkError`s.
public struct AsyncHTTPClientTransport: HTTPTransport {
    public let client: HTTPClient
    /// At most this many bytes of a response body are read.
    public var maxBodyBytes: Int
    /// The wall clock a failed handshake's certificate is judged by (the one TLS checks it with).
    public var wallClock: @Sendable () -> Date = { Date() }
    /// A wall clock earlier than this was never set (``BuildDate``); tests move it.
    public var buildDate: Date = BuildDate.date

    /// - Parameter client: owned by the caller, who shuts it down.
    public init(client: HTTPClient, maxBodyBytes: Int = 4 << 20) {
        self.client = client
        self.maxBodyBytes = maxBodyBytes
    }

    /// An `HTTPClient` for `configuration` (its `connectTimeout`) on the shared event loop group.
    /// The read timeout is not the client's: `SurveyClient` passes it with every request.
    public static func makeClient(for configuration: SurveyClientConfiguration) -> HTTPClient {
        HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration(for: configuration))
    }

    /// An `HTTPClient` with the given connect timeout on the shared event loop group.
    public static func makeClient(connectTimeout: Duration) -> HTTPClient {
        HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration(connectTimeout: connectTimeout))
    }

    /// The `HTTPClient` configuration `makeClient(for:)` uses.
    static func clientConfiguration(for configuration: SurveyClientConfiguration) -> HTTPClient.Configuration {
        clientConfiguration(connectTimeout: configuration.connectTimeout)
    }

    static func clientConfiguration(connectTimeout: Duration) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: TimeAmount(saturating: connectTimeout))
        // surveyd bootstraps no tracer; left to the default, the client opens a span on the no-op
        // tracer and sets its attributes for every request (about 3 % of the daemon's CPU in a
        // replay).
        configuration.tracing.tracer = nil
        // The survey client decides about redirects itself (`Redirects`): left to the HTTP client,
        // an upload would follow a captive portal's 307 with the respondent's answers.
        configuration.redirectConfiguration = .disallow
        return configuration
    }

    public func send(_ request: TransportRequest, timeout: Duration) async throws(NetworkError) -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .init(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(body) }
        let amount = TimeAmount(saturating: timeout)
        do {
            let response = try await client.execute(outgoing, timeout: amount)
            let body = try await response.body.collect(upTo: maxBodyBytes)
            var headers: [String: String] = [:]
            for (name, value) in response.headers { headers[name.lowercased()] = value }
            return TransportResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw NetworkError(.timeout, "No answer from \(request.url) within \(timeout); the server is slow or stuck. The call will be retried later; check the server if it persists.", cause: error)
        } catch {
            if Self.looksIntercepted(error) {
                throw await Self.handshakeFailed(url: request.url, error: error, now: wallClock(), buildDate: buildDate, timeout: timeout)
            }
            throw NetworkError(.connectionFailed, "Could not talk to \(request.url): \(error). The call will be retried later; check the server address and the network.", cause: error)
        }
    }

    /// The error of a handshake that failed on the server's certificate, its cause told apart by
    /// the certificate's dates (``TLSDiagnosis``): the clock not set, an expired certificate, or
    /// something answering in the server's place.
    static func handshakeFailed(url: String, error: any Error, now: Date, buildDate: Date, timeout: Duration) async -> NetworkError {
        let (kind, detail) = await TLSDiagnosis.diagnose(url: url, now: now, buildDate: buildDate, timeout: min(timeout, .seconds(10)))
        let dates = detail.map { " (\($0))" } ?? ""
        switch kind {
        case .clockNotSet:
            return NetworkError(.clockNotSet, "The survey server's TLS certificate for \(url) cannot be checked because this device's clock is not set\(dates): it is not valid yet by this clock, or this clock is earlier than this build's date (\(BuildDate.day)). Nothing was sent; \(OperatorAdvice.clockNotSet), and the call is made again at once when the clock steps.", cause: error)
        case .certificateExpired:
            return NetworkError(.certificateExpired, "The survey server's TLS certificate for \(url) expired\(dates). Nothing was sent; the call will be retried. Renew the certificate on the server.", cause: error)
        case .portal:
            return NetworkError(.notTheServer, "The TLS certificate that answered for \(url) is not the survey server's (\(error)): the network may intercept connections, e.g. a Wi-Fi login page. Nothing was sent; the call will be retried. \(OperatorAdvice.sentence(OperatorAdvice.portal)) If the server's certificate changed, fix it on the server.", cause: error)
        }
    }

    /// A TLS handshake that failed on the peer's certificate (a certificate for another name, one
    /// no trusted authority signed, or one outside its dates): ``handshakeFailed(url:error:now:buildDate:timeout:)``
    /// tells the causes apart.
    static func looksIntercepted(_ error: any Error) -> Bool {
        if let extra = error as? NIOSSLExtraError { return extra == .failedToValidateHostname }
        if let ssl = error as? NIOSSLError, case .handshakeFailed = ssl { return true }
        return false
    }
}

extension TimeAmount {
    /// `duration` in nanoseconds, saturating at `Int64.min`/`Int64.max` nanoseconds (about 292
    /// years) where converting seconds · 10⁹ to Int64 would trap.
    init(saturating duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (wholeNanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAgain) = wholeNanoseconds.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow || overflowAgain {
            self = .nanoseconds(seconds < 0 ? Int64.min : Int64.max)
        } else {
            self = .nanoseconds(total)
        }
    }
}

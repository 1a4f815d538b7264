#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import NIOCore

/// One HTTP request, as the client hands it to a transport.
public struct TransportRequest: Sendable, Hashable {
    public var method: String
    public var url: String
    public var headers: [String: String]
    /// Sent as it is: AsyncHTTPClient writes a `ByteBuffer` without copying it.
    public var body: ByteBuffer?

    public init(method: String, url: String, headers: [String: String] = [:], body: ByteBuffer? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response: status, headers (names lowercased) and the whole body.
public struct TransportResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }
}

/// The seam between the survey client and the network. `AsyncHTTPClientTransport` is the real
/// one; tests use a fake. A transport throws `NetworkError` with `.connectionFailed` or `.timeout`
/// when no response arrived; any HTTP status is returned, not thrown.
public protocol HTTPTransport: Sendable {
    func send(_ request: TransportRequest, timeout: Duration) async throws(NetworkError) -> TransportResponse
}

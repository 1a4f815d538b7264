#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
public import Foundation

/// A minimal HTTP/1.1 client over TCP to 127.0.0.1 for tests (e.g. the mock server's
/// `/admin/faults` while a test runs): one request with `Connection: close`, the reply read until
/// the server closes or the deadline passes. Blocking I/O runs on a thread of its own.
public enum LoopbackHTTP {
    /// - Parameters:
    ///   - headers: more header fields, e.g. `Cookie`.
    ///   - contentType: the body's type.
    ///   - host: the IPv4 address to connect to (this machine's own: a non-loopback one makes the
    ///     request come from that address).
    public static func request(
        host: String = "127.0.0.1", port: Int, method: String, target: String, body: String? = nil, contentType: String = "application/json",
        headers: [String: String] = [:], deadline: TimeInterval = UnixHTTP.defaultDeadline
    ) async throws -> UnixHTTP.Reply {
        var raw = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { raw += "\(name): \(value)\r\n" }
        if let body {
            raw += "Content-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        } else {
            raw += "Content-Length: 0\r\n\r\n"
        }
        let request = Data(raw.utf8)
        let start = ContinuousClock.now
        let received = try await OwnThread.run { try blockingExchange(host: host, port: port, send: request, deadline: deadline) }
        do {
            return try UnixHTTP.parse(received.data)
        } catch {
            throw UnixHTTP.Failure(description: "\(method) \(target) on port \(port): \(error); \(received.end) after \(ContinuousClock.now - start)")
        }
    }

    static func blockingExchange(host: String = "127.0.0.1", port: Int, send request: Data, deadline: TimeInterval) throws -> RawSocket.Received {
        let fd = try RawSocket.connect(to: .ipv4(address: host, port: port), timeout: deadline)
        defer { close(fd) }
        try RawSocket.sendAll(fd, request)
        return RawSocket.receive(fd, deadline: deadline)
    }
}

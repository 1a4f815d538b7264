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
    public static func request(
        port: Int, method: String, target: String, body: String? = nil, contentType: String = "application/json",
        headers: [String: String] = [:], deadline: TimeInterval = UnixHTTP.defaultDeadline
    ) async throws -> UnixHTTP.Reply {
        var raw = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { raw += "\(name): \(value)\r\n" }
        if let body {
            raw += "Content-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        } else {
            raw += "Content-Length: 0\r\n\r\n"
        }
        let request = Data(raw.utf8)
        let bytes = try await OwnThread.run { try blockingExchange(port: port, send: request, deadline: deadline) }
        return try UnixHTTP.parse(bytes)
    }

    static func blockingExchange(port: Int, send request: Data, deadline: TimeInterval) throws -> Data {
        let fd = try RawSocket.connect(to: .loopback(port: port), timeout: deadline)
        defer { close(fd) }
        try RawSocket.sendAll(fd, request)
        return RawSocket.receiveAll(fd, deadline: deadline)
    }
}

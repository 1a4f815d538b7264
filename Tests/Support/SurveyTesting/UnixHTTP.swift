#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
public import Foundation

/// A minimal HTTP/1.1 client over a Unix socket for tests: it sends exactly the bytes it is
/// given (so tests can send garbage) and reads the reply until the server closes or the
/// deadline passes. Blocking I/O runs on a thread of its own, never on the test's executor.
///
/// The default deadline (60 s) only bounds a server that is stuck: a request closes its
/// connection, so the reply ends when the server has sent it, and on a loaded machine an
/// in-process server can take longer than 10 s to answer while hundreds of tests run beside it.
///
/// For what a client cannot send or see through `ControlClient`: malformed bytes, exact status
/// codes and headers of the HTTP edge, one connection closed after each request (the
/// connection-limit tests). A test that only uses the control API uses `ControlClient`.
public enum UnixHTTP {
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Sends a request with `Connection: close` and a JSON body, and parses the reply.
    public static func request(socket path: String, method: String, target: String, body: String? = nil, deadline: TimeInterval = defaultDeadline) async throws -> Reply {
        var raw = "\(method) \(target) HTTP/1.1\r\nHost: surveyd\r\nConnection: close\r\n"
        if let body {
            raw += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        } else {
            raw += "Content-Length: 0\r\n\r\n"
        }
        let start = ContinuousClock.now
        let bytes = try await exchange(socket: path, send: Data(raw.utf8), deadline: deadline)
        do {
            return try parse(bytes)
        } catch {
            throw Failure(description: "\(method) \(target): \(error) (after \(ContinuousClock.now - start) of a \(deadline) s deadline)")
        }
    }

    /// How long a request waits for its reply at most.
    public static let defaultDeadline: TimeInterval = 60

    /// Sends raw bytes and returns whatever comes back before the server closes or the deadline.
    /// - Parameter halfClose: shut the sending side down after the bytes (`shutdown(SHUT_WR)`),
    ///   as a client does that has nothing more to send.
    public static func exchange(socket path: String, send: Data, halfClose: Bool = false, deadline: TimeInterval = defaultDeadline) async throws -> Data {
        try await OwnThread.run { try blockingExchange(path: path, send: send, halfClose: halfClose, deadline: deadline) }
    }

    /// Sends raw bytes and parses the HTTP reply.
    public static func request(socket path: String, raw: Data, halfClose: Bool = false, deadline: TimeInterval = defaultDeadline) async throws -> Reply {
        try parse(try await exchange(socket: path, send: raw, halfClose: halfClose, deadline: deadline))
    }

    static func blockingExchange(path: String, send: Data, halfClose: Bool, deadline: TimeInterval) throws -> Data {
        let fd = try RawSocket.connect(to: .unix(path: path), timeout: deadline)
        defer { close(fd) }
        if try RawSocket.sendAll(fd, send), halfClose { shutdown(fd, Int32(SHUT_WR)) }
        return RawSocket.receiveAll(fd, deadline: deadline)
    }

    /// Parses an HTTP reply (a chunked body is put together).
    public static func parse(_ bytes: Data) throws -> Reply {
        guard let split = bytes.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(description: "no HTTP reply: \(String(decoding: bytes, as: UTF8.self))")
        }
        let head = String(decoding: bytes[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line: \(head[0])")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(bytes[split.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            body = dechunk(body)
        }
        return Reply(status: status, headers: headers, body: body)
    }

    static func dechunk(_ data: Data) -> Data {
        var out = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText, radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size else { break }
            let end = rest.index(start, offsetBy: size)
            out.append(rest[start..<end])
            rest = rest[min(rest.index(end, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex, rest.endIndex)...]
        }
        return out
    }
}

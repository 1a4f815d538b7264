#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// A minimal HTTP/1.1 client over TCP to 127.0.0.1 for tests (e.g. the mock server's
/// `/admin/faults` while a test runs): one request with `Connection: close`, the reply read until
/// the server closes or the deadline passes. Blocking I/O runs on a Dispatch thread.
public enum LoopbackHTTP {
    public static func request(port: Int, method: String, target: String, body: String? = nil, deadline: TimeInterval = 10) async throws -> UnixHTTP.Reply {
        var raw = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let body {
            raw += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        } else {
            raw += "Content-Length: 0\r\n\r\n"
        }
        let request = Data(raw.utf8)
        let bytes = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try blockingExchange(port: port, send: request, deadline: deadline) })
            }
        }
        return try UnixHTTP.parse(bytes)
    }

    static func blockingExchange(port: Int, send request: Data, deadline: TimeInterval) throws -> Data {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw UnixHTTP.Failure(description: "socket() failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: Int(deadline), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw UnixHTTP.Failure(description: "connect(127.0.0.1:\(port)) failed: \(String(cString: strerror(errno)))") }
        var sent = 0
        try request.withUnsafeBytes { buffer in
            while sent < buffer.count {
                let n = Glibc.send(fd, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                guard n > 0 else { throw UnixHTTP.Failure(description: "send failed: \(String(cString: strerror(errno)))") }
                sent += n
            }
        }
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        let end = Date().addingTimeInterval(deadline)
        while Date() < end {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            received.append(contentsOf: chunk[0..<n])
        }
        return received
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ControlAPI
public import Foundation

/// `connect(2)` and `close(2)`, named apart from ``RawSocket/connect(to:timeout:)``.
private func connectSocket(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 { connect(fd, address, length) }
private func closeSocket(_ fd: Int32) { _ = close(fd) }

/// Blocking stream sockets for the tests' hand-made clients, which must be able to send exactly
/// the bytes a test gives (garbage, half a request) and to hold connections open: connecting to
/// a Unix socket path or to a loopback port, sending everything, reading until the peer closes.
/// Call these off the test's executor (`UnixHTTP` and `LoopbackHTTP` use `OwnThread`).
public enum RawSocket {
    /// Where to connect.
    public enum Address: Sendable, CustomStringConvertible {
        case unix(path: String)
        case loopback(port: Int)
        /// An IPv4 address of this machine's, e.g. a non-loopback one (``nonLoopbackIPv4Address()``).
        case ipv4(address: String, port: Int)

        public var description: String {
            switch self {
            case .unix(let path): path
            case .loopback(let port): "127.0.0.1:\(port)"
            case .ipv4(let address, let port): "\(address):\(port)"
            }
        }
    }

    /// A connected socket with send and receive timeouts of `timeout` seconds (a blocking connect
    /// to a full backlog waits up to the send timeout).
    public static func connect(to address: Address, timeout: TimeInterval) throws -> Int32 {
        let family = if case .unix = address { AF_UNIX } else { AF_INET }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw UnixHTTP.Failure(description: "socket() failed: \(String(cString: strerror(errno)))") }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        switch address {
        case .unix(let path):
            let sun: UnixSocketAddress
            do {
                sun = try UnixSocketAddress(path: path)
            } catch {
                closeSocket(fd)
                throw UnixHTTP.Failure(description: error.message)
            }
            connected = sun.withSockAddr { connectSocket(fd, $0, $1) }
        case .loopback(let port):
            connected = connectIPv4(fd, "127.0.0.1", port)
        case .ipv4(let host, let port):
            connected = connectIPv4(fd, host, port)
        }
        guard connected == 0 else {
            let text = String(cString: strerror(errno))
            closeSocket(fd)
            throw UnixHTTP.Failure(description: "connect(\(address)) failed: \(text)")
        }
        return fd
    }

    private static func connectIPv4(_ fd: Int32, _ host: String, _ port: Int) -> Int32 {
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = in_port_t(UInt16(port).bigEndian)
        sin.sin_addr.s_addr = inet_addr(host)
        return withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connectSocket(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// An IPv4 address of one of this machine's interfaces that is up and not loopback (a
    /// connection to it from this machine comes from that address, not from loopback); nil when
    /// the machine has none.
    public static func nonLoopbackIPv4Address() -> String? {
        // <net/if.h>'s IFF_UP and IFF_LOOPBACK, the same on every Linux architecture.
        let up: UInt32 = 0x1, loopback: UInt32 = 0x8
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = UInt32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                  flags & up != 0, flags & loopback == 0 else { continue }
            let value = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
            guard value >> 24 != 127 else { continue }
            return "\(value >> 24).\(value >> 16 & 255).\(value >> 8 & 255).\(value & 255)"
        }
        return nil
    }

    /// Sends all of `data`. Returns false when the peer closed first (`EPIPE`, `ECONNRESET`): a
    /// server may close early, and what it said before is for the caller to read.
    @discardableResult
    public static func sendAll(_ fd: Int32, _ data: Data) throws -> Bool {
        var sent = 0
        return try data.withUnsafeBytes { buffer in
            while sent < buffer.count {
                let n = send(fd, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                if n < 0, errno == EINTR { continue }
                if n <= 0 {
                    if errno == EPIPE || errno == ECONNRESET { return false }
                    throw UnixHTTP.Failure(description: "send failed: \(String(cString: strerror(errno)))")
                }
                sent += n
            }
            return true
        }
    }

    /// Everything received until the peer closes, the receive timeout passes, or `deadline`. A
    /// read interrupted by a signal (`EINTR`: a handler another part of the process installed)
    /// is tried again.
    public static func receiveAll(_ fd: Int32, deadline: TimeInterval) -> Data {
        receive(fd, deadline: deadline).data
    }

    /// What ``receive(_:deadline:)`` read, and why it stopped.
    public struct Received: Sendable {
        public var data: Data
        /// "closed by the server", "no byte within the timeout" or the `recv` error.
        public var end: String
    }

    /// Everything received until the peer closes, the receive timeout passes, or `deadline`, and
    /// which of these ended it.
    public static func receive(_ fd: Int32, deadline: TimeInterval) -> Received {
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        let end = Date().addingTimeInterval(deadline)
        while Date() < end {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n > 0 {
                received.append(contentsOf: chunk[0..<n])
                continue
            }
            if n == 0 { return Received(data: received, end: "closed by the server") }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return Received(data: received, end: "no byte within the \(deadline) s timeout") }
            return Received(data: received, end: "recv failed: \(String(cString: strerror(code)))")
        }
        return Received(data: received, end: "the \(deadline) s deadline passed")
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ControlAPI
import Foundation

/// A Unix datagram socket a test binds and reads on a thread of its own, standing in for
/// systemd's notify socket: every datagram received is kept, in order.
public final class DatagramListener: @unchecked Sendable {
    private let fd: Int32
    /// The name for `$NOTIFY_SOCKET`: the path, or `@name` for an abstract socket.
    public let name: String
    private let lock = NSLock()
    private var received: [String] = []
    private var stopped = false

    /// Binds `path`, or the abstract name `abstract` when given.
    public init(path: String? = nil, abstract: String? = nil) throws {
        let address = try abstract.map { try UnixSocketAddress(abstract: $0) } ?? UnixSocketAddress(path: path ?? "")
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        name = address.description
        let bound = address.withSockAddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw UnixHTTP.Failure(description: "cannot bind the datagram socket \(name): \(String(cString: strerror(code)))")
        }
        // Reads wake every 100 ms to see whether the listener was stopped.
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !lock.withLock({ stopped }) {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count >= 0 {
                    let message = String(decoding: buffer[..<count], as: UTF8.self)
                    lock.withLock { received.append(message) }
                }
            }
            close(fd)
        }
        thread.start()
    }

    deinit { stop() }

    /// The datagrams received so far.
    public var messages: [String] { lock.withLock { received } }

    /// Stops reading and closes the socket.
    public func stop() {
        lock.withLock { stopped = true }
    }
}

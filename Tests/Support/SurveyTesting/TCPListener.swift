#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
public import Foundation

/// A plain TCP listener on 127.0.0.1 that only counts: the connections it accepted and the bytes
/// they carried. It answers nothing. Tests put it where a request must not arrive.
public final class TCPListener: @unchecked Sendable {
    public let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var accepted = 0
    private var received = Data()
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Listens on `port` (0: the system picks one; `port` tells which).
    public init(port: Int = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "cannot listen on 127.0.0.1:\(port): \(message)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Connections accepted so far.
    public var connections: Int { lock.withLock { accepted } }
    /// Every byte received so far, from every connection.
    public var bytes: Data { lock.withLock { received } }

    /// Stops listening and waits for the serving thread.
    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        done.wait()
        close(fd)
    }

    deinit { stop() }

    private func serve() {
        var open: [Int32] = []
        while !lock.withLock({ stopped }) {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)] + open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), 50) > 0 else { continue }
            if fds[0].revents & Int16(POLLIN) != 0 {
                let client = accept(fd, nil, nil)
                if client >= 0 {
                    open.append(client)
                    lock.withLock { accepted += 1 }
                }
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            for entry in fds.dropFirst() where entry.revents != 0 {
                let n = recv(entry.fd, &chunk, chunk.count, 0)
                if n > 0 {
                    lock.withLock { received.append(contentsOf: chunk[0..<n]) }
                } else {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        for client in open { close(client) }
        done.signal()
    }
}

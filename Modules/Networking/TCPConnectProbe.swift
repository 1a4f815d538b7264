import Foundation
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// The real probe: no route to a numeric server address means offline without any packet
/// (a UDP `connect()` only looks the route up); otherwise a short TCP connect to host and port.
public struct TCPConnectProbe: ConnectivityProbe {
    public var host: String
    public var port: Int
    public var connectTimeout: Duration
    let group: any EventLoopGroup

    public init(host: String, port: Int, connectTimeout: Duration = .milliseconds(500), group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.host = host
        self.port = port
        self.connectTimeout = connectTimeout
        self.group = group
    }

    public func isReachable() async -> Bool {
        if Self.hasRoute(toNumericHost: host, port: port) == false { return false }
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.nanoseconds(Int64(connectTimeout.components.seconds) * 1_000_000_000 + connectTimeout.components.attoseconds / 1_000_000_000))
        do {
            let channel = try await bootstrap.connect(host: host, port: port).get()
            try? await channel.close().get()
            return true
        } catch {
            return false
        }
    }

    /// For a numeric IPv4/IPv6 address: whether the kernel has a route to it (no packet is sent).
    /// Nil for host names, which cannot be checked without resolving them.
    static func hasRoute(toNumericHost host: String, port: Int) -> Bool? {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
            return withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { udpConnect(family: AF_INET, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        if inet_pton(AF_INET6, host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
            return withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { udpConnect(family: AF_INET6, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        return nil
    }

    private static func udpConnect(family: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Bool {
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        return connect(fd, address, length) == 0
    }
}

public import Foundation
public import NIOCore
public import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// The real probe. The server's host is turned into addresses (a numeric address as it is, a
/// host name through `getaddrinfo` on NIO's thread pool, never on an event loop); addresses the
/// kernel has no route to are dropped without sending a packet (a UDP `connect()` only looks the
/// route up). No address left means offline; otherwise a short TCP connect to each routed address
/// in turn, and the first that accepts means online.
public struct TCPConnectProbe: ConnectivityProbe {
    public var host: String
    public var port: Int
    public var connectTimeout: Duration
    let group: any EventLoopGroup
    /// Whether the kernel has a route to an address (sends nothing); `hasRoute(to:)` unless a test injects one.
    let routeLookup: @Sendable (SocketAddress) -> Bool
    /// A TCP connect within the timeout, closed at once; true when it was accepted. Injected by tests.
    let connector: (@Sendable (SocketAddress, Duration) async -> Bool)?

    public init(host: String, port: Int, connectTimeout: Duration = .milliseconds(500), group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.init(host: host, port: port, connectTimeout: connectTimeout, group: group, routeLookup: Self.hasRoute(to:), connector: nil)
    }

    /// With the route lookup and the connect replaced, so that tests need no network.
    init(
        host: String, port: Int, connectTimeout: Duration = .milliseconds(500), group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        routeLookup: @escaping @Sendable (SocketAddress) -> Bool = TCPConnectProbe.hasRoute(to:),
        connector: (@Sendable (SocketAddress, Duration) async -> Bool)?
    ) {
        self.host = host
        self.port = port
        self.connectTimeout = connectTimeout
        self.group = group
        self.routeLookup = routeLookup
        self.connector = connector
    }

    /// A probe for the server of `baseURL` (port 80 or 443 when the URL names none); nil without a host.
    public init?(baseURL: URL, connectTimeout: Duration = .milliseconds(500)) {
        guard let host = baseURL.host, !host.isEmpty else { return nil }
        let port = baseURL.port ?? (baseURL.scheme?.lowercased() == "https" ? 443 : 80)
        self.init(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port, connectTimeout: connectTimeout)
    }

    public func isReachable() async -> Bool {
        let host = self.host
        let port = self.port
        let addresses: [SocketAddress]
        if let numeric = Self.numericAddress(host, port: port) {
            addresses = [numeric]
        } else {
            // getaddrinfo blocks; it runs on NIO's thread pool. A name that does not resolve means offline.
            guard let resolved = try? await NIOThreadPool.singleton.runIfActive({ Self.resolve(host, port: port) }) else { return false }
            addresses = resolved
        }
        for address in addresses.filter(routeLookup) {
            if await accepts(address) { return true }
        }
        return false
    }

    private func accepts(_ address: SocketAddress) async -> Bool {
        if let connector { return await connector(address, connectTimeout) }
        let bootstrap = ClientBootstrap(group: group).connectTimeout(TimeAmount(saturating: connectTimeout))
        guard let channel = try? await bootstrap.connect(to: address).get() else { return false }
        try? await channel.close().get()
        return true
    }

    /// For a numeric IPv4/IPv6 address: whether the kernel has a route to it (no packet is sent).
    /// Nil for host names, which need resolving first (`resolve`).
    static func hasRoute(toNumericHost host: String, port: Int) -> Bool? {
        numericAddress(host, port: port).map(hasRoute(to:))
    }

    /// The addresses the kernel has a route to, in their order.
    static func routed(_ addresses: [SocketAddress]) -> [SocketAddress] {
        addresses.filter(hasRoute(to:))
    }

    static func numericAddress(_ host: String, port: Int) -> SocketAddress? {
        try? SocketAddress(ipAddress: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port)
    }

    /// Every TCP address `getaddrinfo` gives for `host` (blocking; call it off the event loops).
    /// Empty when the name does not resolve.
    static func resolve(_ host: String, port: Int) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var result: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let sa = info.pointee.ai_addr {
                switch info.pointee.ai_family {
                case AF_INET:
                    let v4 = UnsafeRawPointer(sa).load(as: sockaddr_in.self)
                    result.append(SocketAddress(v4, host: host))
                case AF_INET6:
                    let v6 = UnsafeRawPointer(sa).load(as: sockaddr_in6.self)
                    result.append(SocketAddress(v6, host: host))
                default:
                    break
                }
            }
            cursor = info.pointee.ai_next
        }
        var seen = Set<SocketAddress>()
        return result.filter { seen.insert($0).inserted }
    }

    static func hasRoute(to address: SocketAddress) -> Bool {
        let fd = socket(Int32(address.protocol.rawValue), Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        return address.withSockAddr { connect(fd, $0, socklen_t($1)) } == 0
    }
}

public import NIOCore

/// Which clients may use the staff screen (its PIN pad, its glance and its actions).
///
/// The pages are plain HTTP. Served to other machines, everything between the browser and
/// surveyd can be read and changed on the way: the staff PIN as typed, the staff cookie after
/// it, the actions. Anyone who reaches the address could also type wrong PINs until the lockout
/// shuts the staff out. So where the pages reach other machines, only a browser on the kiosk
/// itself (a loopback client) uses the staff screen, unless the operator accepts the risk.
public enum KioskStaffAccess: Sendable, Hashable {
    /// Only clients on this machine: a loopback address (`127.0.0.0/8`, `::1`, or an IPv4 loopback
    /// address mapped into IPv6). A client whose address is unknown is refused.
    case loopbackOnly
    /// Any client that reaches the pages: the operator accepted that the PIN and the staff cookie
    /// cross the network in the clear.
    case anyClient

    /// Whether a client at `peer` may use the staff screen.
    public func admits(_ peer: SocketAddress?) -> Bool {
        switch self {
        case .anyClient: true
        case .loopbackOnly: peer.map(Self.isLoopback) ?? false
        }
    }

    /// Whether `address` is on this machine: an IPv4 loopback address, `::1`, an IPv4 loopback
    /// address mapped into IPv6 (`::ffff:127.0.0.1`, as a dual-stack socket reports it), or a Unix
    /// domain socket.
    public static func isLoopback(_ address: SocketAddress) -> Bool {
        // The address's bytes, in network order, where `sockaddr_in` and `sockaddr_in6` keep them
        // on Linux and the BSDs alike: from byte 4 (after the family and the port) and from byte
        // 8 (after the flow label).
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address) { $0[4] } == 127
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address) { Array($0[8..<24]) }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
            return mapped && bytes[12] == 127
        case .unixDomainSocket:
            return true
        }
    }
}

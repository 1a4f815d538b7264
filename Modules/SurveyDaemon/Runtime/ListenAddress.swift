#if canImport(Glibc)
import Glibc
#endif

/// A TCP address to listen on, `HOST:PORT`: an IPv4 address, an IPv6 address in brackets, or
/// `localhost`; port 0 lets the system choose a free one.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host as the socket binds it (`localhost` as `127.0.0.1`, an IPv6 address without brackets).
    public var host: String
    public var port: Int

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; the error says what is wrong and gives an example.
    public init(parsing text: String) throws(ListenAddressError) {
        let example = "e.g. 127.0.0.1:8080 or [::1]:8080"
        guard let colon = text.lastIndex(of: ":") else {
            throw ListenAddressError("\"\(text)\" has no port; give HOST:PORT, \(example)")
        }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText), (0...65535).contains(port) else {
            throw ListenAddressError("\"\(portText)\" in \"\(text)\" is not a port from 0 to 65535; \(example)")
        }
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            guard Self.isIPv6(host) else { throw ListenAddressError("\"\(host)\" in \"\(text)\" is not an IPv6 address; \(example)") }
        } else if host == "localhost" {
            host = "127.0.0.1"
        } else if !Self.isIPv4(host) {
            throw ListenAddressError("\"\(host)\" in \"\(text)\" is not an IPv4 address, a bracketed IPv6 address or localhost (host names are not resolved); \(example)")
        }
        self.host = host
        self.port = port
    }

    /// Whether only this machine can reach the address: 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        if Self.isIPv4(host) { return host.hasPrefix("127.") }
        var address = in6_addr()
        guard inet_pton(AF_INET6, host, &address) == 1 else { return false }
        return withUnsafeBytes(of: &address) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}

/// An address setting that cannot be read.
public struct ListenAddressError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}

#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#endif

/// A Unix socket address for `bind`, `connect` and `sendto`: a path, or a Linux abstract name.
///
/// NIO's `SocketAddress(unixDomainSocketPath:)` does not fit here: it caps paths at 103 bytes
/// (macOS's limit), below the 107 Linux allows and the daemon's `--socket` setting accepts, and it
/// always passes the whole `sockaddr_un`, so an abstract name would end in NUL bytes that are
/// part of the name. This type gives the exact length for both.
public struct UnixSocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// What the address names.
    public enum Name: Sendable, Hashable {
        /// A socket file.
        case path(String)
        /// A name in Linux's abstract namespace (no file), written `@name` by systemd.
        case abstract(String)
    }

    public let name: Name
    /// The bytes of `sun_path` that count: a path and its NUL, or a NUL and the abstract name.
    private let sunPath: [UInt8]

    /// The size of `sun_path`: a path has at most one byte fewer (its NUL), an abstract name too
    /// (the NUL in front of it).
    public static let sunPathSize = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// The address of the socket file at `path`.
    /// - Throws: `unix_socket_path_empty`, `unix_socket_path_nul`, `unix_socket_path_too_long`.
    public init(path: String) throws(UnixSocketAddressError) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty else {
            throw UnixSocketAddressError(code: "unix_socket_path_empty", message: "a Unix socket path is empty; give the socket file's path")
        }
        guard !bytes.contains(0) else {
            throw UnixSocketAddressError(code: "unix_socket_path_nul", message: "the Unix socket path \"\(path)\" contains a NUL byte; give a path without one")
        }
        guard bytes.count < Self.sunPathSize else {
            throw UnixSocketAddressError(
                code: "unix_socket_path_too_long",
                message: "the Unix socket path \(path) is \(bytes.count) bytes, more than the \(Self.sunPathSize - 1) a socket address holds; choose a shorter path")
        }
        name = .path(path)
        sunPath = bytes + [0]
    }

    /// The address `name` in Linux's abstract namespace (given without its `@`).
    /// - Throws: `unix_socket_path_empty`, `unix_socket_path_too_long`.
    public init(abstract abstractName: String) throws(UnixSocketAddressError) {
        let bytes = Array(abstractName.utf8)
        guard !bytes.isEmpty else {
            throw UnixSocketAddressError(code: "unix_socket_path_empty", message: "an abstract Unix socket name is empty; give a name after the @")
        }
        guard bytes.count < Self.sunPathSize else {
            throw UnixSocketAddressError(
                code: "unix_socket_path_too_long",
                message: "the abstract Unix socket name @\(abstractName) is \(bytes.count) bytes, more than the \(Self.sunPathSize - 1) a socket address holds; choose a shorter name")
        }
        name = .abstract(abstractName)
        sunPath = [0] + bytes
    }

    /// The address systemd writes as `/path` or `@abstract-name` (`$NOTIFY_SOCKET`, `ListenStream=`).
    public init(systemdName: String) throws(UnixSocketAddressError) {
        if systemdName.hasPrefix("@") {
            try self.init(abstract: String(systemdName.dropFirst()))
        } else {
            try self.init(path: systemdName)
        }
    }

    /// The path the Unix socket `fd` is bound to (`getsockname`); "" when it is bound to an
    /// abstract name or to nothing.
    /// - Throws: `unix_socket_name` when the address cannot be read.
    public static func boundPath(of fd: Int32) throws(UnixSocketAddressError) -> String {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            throw UnixSocketAddressError(code: "unix_socket_name", message: "cannot read the address of descriptor \(fd): \(String(cString: strerror(errno)))")
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        return withUnsafeBytes(of: address.sun_path) { raw in
            String(decoding: raw.prefix(max(0, Int(length) - pathOffset)).prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// `/path` or `@abstract-name`, as systemd writes them.
    public var description: String {
        switch name {
        case .path(let path): path
        case .abstract(let abstractName): "@" + abstractName
        }
    }

    /// The length to pass with the address: `sun_family` and the bytes of `sun_path` that count.
    public var length: socklen_t {
        socklen_t((MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2) + sunPath.count)
    }

    /// Calls `body` with the address as a `sockaddr` and its exact length.
    public func withSockAddr<Result, Failure: Error>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: sunPath) }
        let length = length
        return try withUnsafePointer(to: &address) { pointer throws(Failure) -> Result in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(Failure) -> Result in try body(address, length) }
        }
    }
}

/// A Unix socket address that cannot be made.
public struct UnixSocketAddressError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable: `unix_socket_path_empty`, `unix_socket_path_nul`, `unix_socket_path_too_long`,
    /// `unix_socket_name`.
    public var code: String
    public var message: String
    public var description: String { message }
}

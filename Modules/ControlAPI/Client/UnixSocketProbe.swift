#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether a process accepts connections on a Unix socket path.
public enum UnixSocketProbe {
    public enum Result: Sendable, Hashable {
        /// A process accepted the connection.
        case live
        /// Nothing can be listening: the connection was refused (`ECONNREFUSED`, a socket file
        /// left by a process that is gone) or there is no file (`ENOENT`). Safe to remove.
        case stale
        /// The connect failed otherwise, so whether a process serves the path is not known:
        /// `EAGAIN` is a live process whose backlog is full (or that did not accept within the
        /// timeout), `EACCES`/`EPERM` a socket this user may not use. Never remove such a file.
        case unknown(errno: Int32)
    }

    /// Connects to the socket: a daemon that accepts is live; a refused connection is a stale
    /// file; any other failure is `unknown` with its errno.
    /// - Parameter timeout: how long to wait for a listener whose backlog is full before giving
    ///   up with `unknown(errno: EAGAIN)`.
    public static func probe(path: String, timeout: Duration = .seconds(1)) -> Result {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return .unknown(errno: errno) }
        defer { close(fd) }
        let address: UnixSocketAddress
        do {
            address = try UnixSocketAddress(path: path)
        } catch {
            return .unknown(errno: error.code == "unix_socket_path_too_long" ? ENAMETOOLONG : EINVAL)
        }
        // A blocking connect to a full backlog waits up to SO_SNDTIMEO, then fails with EAGAIN.
        let (seconds, attoseconds) = timeout.components
        var limit = timeval(tv_sec: max(0, Int(seconds)), tv_usec: max(0, Int(attoseconds / 1_000_000_000_000)))
        if limit.tv_sec == 0 && limit.tv_usec == 0 { limit.tv_usec = 1000 }  // 0 would mean "wait forever"
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        while true {
            let result = address.withSockAddr { connect(fd, $0, $1) }
            if result == 0 { return .live }
            let code = errno
            if code == EINTR { continue }
            return classify(connectErrno: code)
        }
    }

    /// What a failed `connect(2)` to a Unix socket says about the path. Only a refusal
    /// (`ECONNREFUSED`) or a missing file (`ENOENT`) means nothing listens there.
    public static func classify(connectErrno code: Int32) -> Result {
        switch code {
        case ECONNREFUSED, ENOENT: .stale
        default: .unknown(errno: code)
        }
    }

    /// An errno for a message: its symbolic name when it is a usual one for `connect(2)`, and its text,
    /// e.g. `EAGAIN (Resource temporarily unavailable)`.
    public static func describe(errno code: Int32) -> String {
        let names: [Int32: String] = [
            EAGAIN: "EAGAIN", EACCES: "EACCES", EPERM: "EPERM", ECONNREFUSED: "ECONNREFUSED", ENOENT: "ENOENT",
            ETIMEDOUT: "ETIMEDOUT", EINTR: "EINTR", ENOTSOCK: "ENOTSOCK", EPROTOTYPE: "EPROTOTYPE",
            ENAMETOOLONG: "ENAMETOOLONG", ELOOP: "ELOOP", ENOTDIR: "ENOTDIR", ENOMEM: "ENOMEM",
            ENOBUFS: "ENOBUFS", EMFILE: "EMFILE", ENFILE: "ENFILE", EADDRNOTAVAIL: "EADDRNOTAVAIL",
        ]
        let text = String(cString: strerror(code))
        return "\(names[code] ?? "errno \(code)") (\(text))"
    }
}

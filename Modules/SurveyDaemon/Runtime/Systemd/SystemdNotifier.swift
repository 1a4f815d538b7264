#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#endif
import ControlAPI

/// Where a service manager's notifications go: systemd's notify socket, or a test's recorder.
public protocol ServiceManagerNotifying: Sendable {
    /// Sends one notification: `KEY=value` lines, e.g. `READY=1\nSTATUS=online`.
    func notify(_ message: String) throws(SystemdNotifyError)
}

/// A notification that could not be sent.
public struct SystemdNotifyError: Error, Sendable, CustomStringConvertible {
    /// Stable: `notify_socket_invalid`, `notify_socket`, `notify_send`.
    public var code: String
    public var message: String
    public var description: String { message }
}

/// systemd's notification protocol (`sd_notify(3)`): each message is one datagram of `KEY=value`
/// lines sent to the Unix socket named by `$NOTIFY_SOCKET`, a path or, when it starts with `@`,
/// an abstract socket. No library call is involved, so a daemon started without systemd (no
/// `$NOTIFY_SOCKET`) simply has no notifier.
public struct SystemdNotifier: ServiceManagerNotifying {
    /// The socket as `$NOTIFY_SOCKET` names it.
    public let socketName: String
    /// Its address: a path, or an abstract name (which NIO's socket addresses cannot send to).
    let address: UnixSocketAddress

    /// The notifier `$NOTIFY_SOCKET` asks for; nil when it is unset or empty.
    /// - Throws: `notify_socket_invalid` for a value that is neither an absolute path nor an
    ///   abstract name (`@…`), or one too long for a Unix socket address.
    public init?(environment: [String: String]) throws(SystemdNotifyError) {
        guard let name = environment["NOTIFY_SOCKET"], !name.isEmpty else { return nil }
        try self.init(socketName: name)
    }

    public init(socketName: String) throws(SystemdNotifyError) {
        guard socketName.hasPrefix("/") || (socketName.hasPrefix("@") && socketName.utf8.count > 1) else {
            throw SystemdNotifyError(code: "notify_socket_invalid", message: "NOTIFY_SOCKET \"\(socketName)\" is neither an absolute path nor an abstract socket name (@…); notifications are not sent")
        }
        do {
            address = try UnixSocketAddress(systemdName: socketName)
        } catch {
            throw SystemdNotifyError(code: "notify_socket_invalid", message: "NOTIFY_SOCKET \"\(socketName)\" is not a Unix socket address: \(error.message); notifications are not sent")
        }
        self.socketName = socketName
    }

    /// Sends `message` as one datagram on a socket of its own (as `sd_notify` does), so that
    /// nothing stays open between notifications.
    public func notify(_ message: String) throws(SystemdNotifyError) {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw SystemdNotifyError(code: "notify_socket", message: "cannot create a socket to notify systemd: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let payload = Array(message.utf8)
        let sent = address.withSockAddr { address, length in
            payload.withUnsafeBytes { body in
                sendto(fd, body.baseAddress, body.count, Int32(MSG_NOSIGNAL), address, length)
            }
        }
        guard sent == payload.count else {
            let reason = sent < 0 ? String(cString: strerror(errno)) : "only \(sent) of \(payload.count) bytes were sent"
            throw SystemdNotifyError(code: "notify_send", message: "cannot notify systemd on \(socketName): \(reason)")
        }
    }
}

/// systemd's watchdog as the environment gives it (`sd_watchdog_enabled(3)`): `$WATCHDOG_USEC`,
/// the interval within which the service must send `WATCHDOG=1`, for the process `$WATCHDOG_PID`
/// names (every process when it is unset).
public enum SystemdWatchdog {
    /// The watchdog interval for process `pid`; nil when there is no watchdog for it.
    public static func interval(environment: [String: String], pid: Int32 = getpid()) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else { return nil }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty {
            guard Int32(owner) == pid else { return nil }
        }
        return .microseconds(Int64(clamping: microseconds))
    }
}

#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#endif
import ControlAPI

/// A listening control socket the service manager passed (socket activation).
public struct InheritedControlSocket: Sendable, Hashable {
    /// The descriptor, 3 or above.
    public var descriptor: Int32
    /// The path it is bound to, as `getsockname` gives it.
    public var path: String
}

/// systemd's socket activation (`sd_listen_fds(3)`): with a `.socket` unit, systemd binds and
/// listens on the control socket itself and passes it to surveyd as descriptor 3, saying so with
/// `$LISTEN_FDS` (how many, from 3 on), `$LISTEN_PID` (for which process) and, optionally,
/// `$LISTEN_FDNAMES` (their names, `:`-separated; `FileDescriptorName=` in the unit).
public enum SocketActivation {
    /// The first passed descriptor.
    public static let firstDescriptor: Int32 = 3
    /// The name that picks the control socket when several are passed.
    public static let controlName = "control"
    /// The variables that pass sockets; surveyd removes them from its environment once read.
    public static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// The control socket passed to process `pid`; nil when none was passed to it.
    ///
    /// One passed socket is the control socket; of several, the one named `control`. Every
    /// passed descriptor is marked close-on-exec.
    /// - Throws: `socket_activation` when the variables are malformed, several sockets are passed
    ///   and none is named `control`, or the chosen descriptor is not a listening Unix stream socket.
    public static func controlSocket(environment: [String: String], pid: Int32 = getpid()) throws(ControlError) -> InheritedControlSocket? {
        guard let pidText = environment["LISTEN_PID"], let countText = environment["LISTEN_FDS"] else { return nil }
        guard let owner = Int32(pidText) else { throw failure("LISTEN_PID \"\(pidText)\" is not a process id") }
        guard owner == pid else { return nil }
        guard let count = Int32(countText), count >= 0, count <= 1024 else { throw failure("LISTEN_FDS \"\(countText)\" is not a number of descriptors") }
        guard count > 0 else { return nil }
        for fd in firstDescriptor..<(firstDescriptor + count) {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
        let names = environment["LISTEN_FDNAMES"].map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? []
        let index: Int32
        if let named = names.firstIndex(of: controlName), named < Int(count) {
            index = Int32(named)
        } else if count == 1 {
            index = 0
        } else {
            throw failure("systemd passed \(count) sockets (LISTEN_FDNAMES \"\(names.joined(separator: ":"))\") and none is named \(controlName); give the control socket FileDescriptorName=\(controlName) in the .socket unit")
        }
        let fd = firstDescriptor + index
        return InheritedControlSocket(descriptor: fd, path: try check(fd))
    }

    /// The path of `fd` when it is a listening Unix stream socket.
    static func check(_ fd: Int32) throws(ControlError) -> String {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        guard option(SO_DOMAIN) == AF_UNIX, option(SO_TYPE) == Int32(SOCK_STREAM.rawValue) else {
            throw failure("descriptor \(fd) is not a Unix stream socket; the .socket unit must have ListenStream=/path/to/surveyd.sock")
        }
        guard option(SO_ACCEPTCONN) == 1 else {
            throw failure("descriptor \(fd) is a Unix socket that does not listen; the .socket unit must have ListenStream= (and Accept=no)")
        }
        let path: String
        do {
            path = try UnixSocketAddress.boundPath(of: fd)
        } catch {
            throw failure(error.message)
        }
        guard path.hasPrefix("/") else {
            throw failure("descriptor \(fd) is not bound to a path (surveyctl finds the daemon by path); give the .socket unit ListenStream=/path/to/surveyd.sock")
        }
        return path
    }

    static func failure(_ message: String) -> ControlError {
        ControlError(status: 500, code: "socket_activation", "socket activation: \(message)")
    }
}

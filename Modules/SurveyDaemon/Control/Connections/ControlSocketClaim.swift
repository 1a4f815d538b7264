#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ControlAPI
import Synchronization

/// `bind(2)`, named apart from ``ControlSocketClaim/bind()``.
private func systemBind(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    bind(fd, address, length)
}

/// One daemon's hold on a control socket path, from before it looks at the path until it exits.
///
/// Two surveyd started at once with the same `--socket` could otherwise both find no live
/// socket, and the second would replace the first one's socket file. So every surveyd first
/// takes an exclusive `flock` on `<socket>.lock` (mode 0600, beside the socket): only the holder
/// checks the path, replaces a stale socket file and binds; any other stops with
/// `already_running`. The lock file is never removed, so that every daemon locks the same file;
/// the kernel drops the lock when its holder exits, however it exits.
///
/// The holder binds the socket itself (``bind()``; NIO gets the bound descriptor, so it neither
/// removes a file when it binds nor when it closes), then opens the socket file with `O_PATH`
/// and records its device and inode: ``removeSocketFile()`` removes the file only while the path
/// still names that one, so a daemon never removes a socket file it did not create. (The open
/// descriptor keeps the inode alive, so that its number cannot go to a file that replaced it.)
///
/// A socket systemd passed (socket activation, ``inherited(_:)``) belongs to systemd's `.socket`
/// unit: the claim takes no lock, binds nothing, and never removes the file.
public final class ControlSocketClaim: Sendable {
    /// The control socket's path.
    public let path: String
    /// The lock file beside it.
    public var lockPath: String { Self.lockPath(for: path) }

    private struct State {
        var lockFD: Int32
        /// The socket file this daemon bound: an `O_PATH` descriptor of it, its `st_dev` and `st_ino`.
        var bound: (fd: Int32, device: UInt64, inode: UInt64)?
        /// A listening socket systemd passed, until the listener takes it.
        var inherited: Int32?
    }

    private let state: Mutex<State>

    /// Whether the socket was passed by systemd rather than bound by this daemon.
    public let isInherited: Bool

    private init(path: String, lockFD: Int32, inherited: Int32? = nil) {
        self.path = path
        isInherited = inherited != nil
        state = Mutex(State(lockFD: lockFD, bound: nil, inherited: inherited))
    }

    /// The claim of a listening socket systemd passed: no lock, and the file is never removed.
    public static func inherited(_ socket: InheritedControlSocket) -> ControlSocketClaim {
        ControlSocketClaim(path: socket.path, lockFD: -1, inherited: socket.descriptor)
    }

    /// The socket to serve on: the one systemd passed (once), or a new one bound at ``path``.
    func listeningSocket() throws(ControlError) -> Int32 {
        if let fd = state.withLock({ state in
            defer { state.inherited = nil }
            return state.inherited
        }) {
            return fd
        }
        guard !isInherited else {
            throw ControlError(status: 500, code: "socket_bind", "the control socket systemd passed was already used; restart surveyd")
        }
        return try bind()
    }

    deinit { release() }

    static func lockPath(for path: String) -> String { path + ".lock" }

    /// Takes the lock of `path` without waiting.
    /// - Throws: `already_running` when another surveyd holds it; `socket_lock` when the lock
    ///   file cannot be opened or locked.
    static func acquire(path: String) throws(ControlError) -> ControlSocketClaim {
        let lockPath = lockPath(for: path)
        // flock needs no write access: a lock file another user's surveyd left readable will do.
        let fd = open(lockPath, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw ControlError(status: 500, code: "socket_lock", "cannot open the control socket's lock file \(lockPath): \(Self.describe(errno)); surveyd's user must be able to create or read it (remove it when no surveyd runs) or choose another --socket")
        }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(fd)
            if code == EWOULDBLOCK { throw ControlSocket.alreadyRunning(path) }
            throw ControlError(status: 500, code: "socket_lock", "cannot lock \(lockPath): \(Self.describe(code)); choose another --socket")
        }
        return ControlSocketClaim(path: path, lockFD: fd)
    }

    /// A new Unix stream socket bound at ``path`` (not listening yet), recorded as this daemon's
    /// socket file. ``ControlSocket/prepare(path:probe:)`` removed a stale file already.
    func bind() throws(ControlError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw ControlError(status: 500, code: "socket_bind", "cannot create the control socket: \(Self.describe(errno))")
        }
        let address: UnixSocketAddress
        do {
            address = try UnixSocketAddress(path: path)
        } catch {
            close(fd)
            throw ControlError(status: 500, code: "socket_bind", "cannot bind the control socket: \(error.message) (--socket)")
        }
        let bound = address.withSockAddr { systemBind(fd, $0, $1) }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw ControlError(status: 500, code: "socket_bind", "cannot bind the control socket \(path): \(Self.describe(code)); another process created it after surveyd checked it, remove it or choose another --socket")
        }
        do {
            try recordBound()
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Records the socket file just bound at ``path``.
    func recordBound() throws(ControlError) {
        let fd = open(path, Self.openPathOnly | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw ControlError(status: 500, code: "socket_missing", "the control socket \(path) cannot be opened right after it was bound (\(Self.describe(errno))); it will not be removed at exit")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK else {
            close(fd)
            throw ControlError(status: 500, code: "socket_missing", "\(path) is not a socket right after it was bound; it will not be removed at exit")
        }
        let previous = state.withLock { state in
            defer { state.bound = (fd, UInt64(info.st_dev), UInt64(info.st_ino)) }
            return state.bound?.fd
        }
        if let previous { close(previous) }
    }

    /// Whether the lock is still held (tests).
    var isHeld: Bool { state.withLock { $0.lockFD >= 0 } }

    /// Removes the socket file when it is still the one this daemon bound (and forgets it).
    /// - Returns: whether the file was removed.
    @discardableResult
    public func removeSocketFile() -> Bool {
        guard let bound = state.withLock({ state in
            defer { state.bound = nil }
            return state.bound
        }) else { return false }
        defer { close(bound.fd) }
        var info = stat()
        guard lstat(path, &info) == 0, UInt64(info.st_dev) == bound.device, UInt64(info.st_ino) == bound.inode else {
            return false
        }
        return unlink(path) == 0
    }

    /// Removes the socket file when it is still the one this daemon bound, then drops the lock.
    /// Later calls do nothing.
    public func release() {
        removeSocketFile()
        let fd = state.withLock { state in
            defer { state.lockFD = -1 }
            return state.lockFD
        }
        if fd >= 0 { close(fd) }
    }

    /// Linux's `O_PATH` (the only way to open a socket file), which Glibc's module leaves out
    /// (it needs `_GNU_SOURCE`); the same value on x86-64 and ARM.
    static let openPathOnly: Int32 = 0o10_000_000

    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}

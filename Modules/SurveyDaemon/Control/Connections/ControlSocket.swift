#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ControlAPI
import Foundation

/// File-system side of the control socket: its directory, its lock, a live or stale socket file,
/// its mode.
enum ControlSocket {
    /// Creates the directory (0700) when missing; takes the socket's lock (``ControlSocketClaim``),
    /// failing when another surveyd holds it; then, holding it, fails when a live process answers
    /// on `path`, removes a stale socket file (one that refuses connections), and refuses to touch
    /// a path that is not a socket, or a socket whose probe failed otherwise (e.g. `EAGAIN` from a
    /// live daemon with a full backlog, `EACCES`). The claim returned must be kept until the
    /// daemon exits; releasing it lets the next surveyd start.
    /// - Parameter probe: how the socket is probed (injected by tests).
    static func prepare(path: String, probe: (String) -> UnixSocketProbe.Result = { UnixSocketProbe.probe(path: $0) }) throws(ControlError) -> ControlSocketClaim {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw ControlError(status: 500, code: "socket_directory", "cannot create the socket directory \(directory): \(error.localizedDescription); create it or choose another --socket")
            }
        }
        // Released (by its deinit) when a check below throws.
        let claim = try ControlSocketClaim.acquire(path: path)
        var info = stat()
        guard lstat(path, &info) == 0 else { return claim }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw ControlError(status: 500, code: "socket_path_taken", "\(path) exists and is not a socket; remove it or choose another --socket")
        }
        switch probe(path) {
        case .live:
            throw alreadyRunning(path)
        case .stale:
            // Nobody listens and no surveyd holds the lock: a socket left by one that is gone.
            unlink(path)
            return claim
        case .unknown(let code):
            throw ControlError(status: 500, code: "socket_unusable", "cannot tell whether a surveyd is serving \(path): connecting to it failed with \(UnixSocketProbe.describe(errno: code)), so it was left in place; if a surveyd is running (a busy one gives EAGAIN), stop it first, otherwise remove \(path) yourself or choose another --socket")
        }
    }

    /// Another surveyd serves `path` (or holds its lock, on its way to serving it).
    static func alreadyRunning(_ path: String) -> ControlError {
        ControlError(status: 500, code: "already_running", "another surveyd is already serving \(path); stop it first (surveyctl --socket \(path) status shows it) or choose another --socket")
    }

    /// 0600, or 0660 owned by `group` when one is configured.
    static func setMode(path: String, group: UInt32?) throws {
        if let group {
            guard chown(path, geteuid(), group) == 0 else {
                throw ControlError(status: 500, code: "socket_group", "cannot give \(path) to group \(group): \(String(cString: strerror(errno)))")
            }
        }
        guard chmod(path, group == nil ? 0o600 : 0o660) == 0 else {
            throw ControlError(status: 500, code: "socket_mode", "cannot set the mode of \(path): \(String(cString: strerror(errno)))")
        }
    }
}

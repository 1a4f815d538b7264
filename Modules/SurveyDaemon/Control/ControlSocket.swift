#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ControlAPI
import Foundation

/// File-system side of the control socket: its directory, a live or stale socket file, its mode.
enum ControlSocket {
    /// Creates the directory (0700) when missing; fails when a live daemon answers on `path`;
    /// removes a stale socket file; refuses to touch a path that is not a socket.
    static func prepare(path: String) throws(ControlError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw ControlError(status: 500, code: "socket_directory", "cannot create the socket directory \(directory): \(error.localizedDescription); create it or choose another --socket")
            }
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw ControlError(status: 500, code: "socket_path_taken", "\(path) exists and is not a socket; remove it or choose another --socket")
        }
        switch UnixSocketProbe.probe(path: path) {
        case .live:
            throw ControlError(status: 500, code: "already_running", "another surveyd is already serving \(path); stop it first (surveyctl --socket \(path) status shows it) or choose another --socket")
        case .stale:
            unlink(path)
        }
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

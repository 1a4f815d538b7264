#if canImport(Glibc)
import Glibc
#endif
#if canImport(CNIOLinux)
import CNIOLinux  // glibc's `stat` members: on Linux the compiler finds them through it
#endif
import SurveyDaemon

/// The demo's directory under `$TMPDIR` is unsafe to use: someone else may own it or write into
/// it. `surveyd` prints the message and exits 78.
public struct DemoDirectoryError: Error, Sendable, CustomStringConvertible {
    public static let code = "demo_directory_unsafe"
    /// What is wrong with the directory, its owner and mode, and what to do.
    public var message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// The default demo directory, `$TMPDIR/surveyd-demo-<uid>`: a name anyone on the machine can
/// guess and create first, so it is used only when the user owns it, nobody else may write into
/// it and it is no symbolic link (checked with `lstat`, nothing followed). When missing, it is
/// made with mode 0700.
enum DemoDirectory {
    static func prepare(_ path: String, userID: uid_t = getuid()) throws {
        if mkdir(path, 0o700) != 0 {
            let error = errno
            guard error == EEXIST else {
                throw DaemonStartError("cannot create the demo directory \(path): \(String(cString: strerror(error))); give another --state-dir")
            }
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw DaemonStartError("cannot read the demo directory \(path): \(String(cString: strerror(errno))); give another --state-dir")
        }
        let type = info.st_mode & S_IFMT
        let mode = "0" + String(info.st_mode & 0o7777, radix: 8)
        let owner = "owner \(userName(info.st_uid)), mode \(mode)"
        let remedy = "remove it (rm -r \(path)) if nothing of yours is in it, or give --state-dir DIR"
        if type == S_IFLNK {
            throw DemoDirectoryError("the demo directory \(path) is a symbolic link (\(owner)), which surveyd does not follow there: \(remedy)")
        }
        guard type == S_IFDIR else {
            throw DemoDirectoryError("the demo directory \(path) is not a directory (\(owner)): \(remedy)")
        }
        guard info.st_uid == userID else {
            throw DemoDirectoryError("the demo directory \(path) belongs to someone else (\(owner)), not to you (\(userName(userID))): \(remedy)")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw DemoDirectoryError("the demo directory \(path) may be written by group or others (\(owner)): chmod 700 \(path) if it is yours, or \(remedy)")
        }
    }

    /// `name (uid N)`, or `uid N` for a user with no name.
    static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return "\(String(cString: name)) (uid \(uid))"
    }
}

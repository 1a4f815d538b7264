// Owner-only directories for the daemon's state: created 0700 whatever the umask, and made
// durable by an fsync of the parent, as a new file is by an fsync of its directory.

#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Creates the directories of the state directory.
public enum PrivateDirectory {
    /// Creates `path` with mode 0700 and fsyncs its parent, so that the new entry survives a
    /// power loss; with `intermediates`, missing parents are created the same way first. Sets
    /// `path` to 0700 whether or not it existed. Throws `StorageError` `.ioFailed` naming the
    /// directory that could not be created or synced.
    public static func create(_ path: String, intermediates: Bool = false, operations: JournalFileOperations = JournalFileOperations()) throws {
        var missing: [String] = []
        var current = trimmed(path)
        while !current.isEmpty, !exists(current) {
            missing.append(current)
            guard intermediates else { break }
            current = parent(of: current)
        }
        for directory in missing.reversed() {
            if mkdir(directory, 0o700) != 0 {
                let code = errno
                if code == EEXIST { continue }
                throw StorageError(code: .ioFailed, message: "Cannot create the directory \(directory); check that its parent exists and is writable.", cause: SystemCallError(call: "mkdir", errno: code))
            }
            chmod(directory, 0o700)
            try Journal.fsyncDirectory(parent(of: directory), operations: operations)
        }
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
            throw StorageError(code: .ioFailed, message: "\(path) is not a directory; remove it or choose another path.", cause: SystemCallError(call: "stat", errno: errno))
        }
        if st.st_mode & 0o7777 != 0o700 { chmod(path, 0o700) }
    }

    static func trimmed(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// The parent directory: `.` for a relative name without a slash, `/` for a top-level one.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

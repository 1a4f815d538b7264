// Owner-only directories for the daemon's state: created 0700 whatever the umask, and made
// durable by an fsync of the parent, as a new file is by an fsync of its directory.

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Creates the directories of the state directory.
public enum PrivateDirectory {
    /// Creates `path` with mode 0700 and fsyncs its parent, so that the new entry survives a
    /// power loss; with `intermediates`, missing parents are created the same way first. Sets
    /// `path` to 0700 whether or not it existed. Throws `StorageError` `.ioFailed` naming the
    /// directory that could not be created or synced.
    public static func create(_ path: String, intermediates: Bool = false, operations: JournalFileOperations = JournalFileOperations()) throws {
        let io = FileIO(operations)
        var missing: [String] = []
        var current = trimmed(path)
        while !current.isEmpty, io.lstat(current) == nil {
            missing.append(current)
            guard intermediates else { break }
            current = parent(of: current)
        }
        for directory in missing.reversed() {
            do {
                try io.mkdir(directory, mode: 0o700)
            } catch let error as SystemCallError where error.errno == EEXIST {
                continue  // made meanwhile by someone else: its mode is set below if it is `path`
            } catch {
                throw StorageError(code: .ioFailed, message: "Cannot create the directory \(directory); check that its parent exists and is writable.", cause: error as? SystemCallError)
            }
            try setOwnerOnly(directory, io: io)
            try io.fsyncDirectory(parent(of: directory))
        }
        guard let st = io.stat(path), st.st_mode & S_IFMT == S_IFDIR else {
            throw StorageError(code: .ioFailed, message: "\(path) is not a directory; remove it or choose another path.", cause: SystemCallError(call: "stat", errno: errno))
        }
        if st.st_mode & 0o7777 != 0o700 { try setOwnerOnly(path, io: io) }
    }

    /// `chmod 0700`, whatever the umask made of `mkdir`'s mode.
    private static func setOwnerOnly(_ directory: String, io: FileIO) throws {
        do {
            try io.chmod(directory, 0o700)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot make the directory \(directory) owner-only (mode 0700); give it to the user the daemon runs as.", cause: error as? SystemCallError)
        }
    }

    static func trimmed(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }

    /// The parent directory: `.` for a relative name without a slash, `/` for a top-level one.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

// The one place where the Storage module makes system calls. Each goes through the
// `JournalFileOperations` seam and its result is checked here: a failure throws `SystemCallError`
// with the call and its errno (the caller adds what it was doing and what to do). Writes loop over
// short writes and EINTR; directories are fsync'd after entries are created, renamed or removed.
// Only `close` is not acted on (see `close(_:)`).

#if canImport(Glibc)
import Glibc
#endif

struct FileIO: Sendable {
    let operations: JournalFileOperations

    init(_ operations: JournalFileOperations = JournalFileOperations()) {
        self.operations = operations
    }

    // MARK: Descriptors

    /// Opens `path` close-on-exec. With `mode`, the file is created with it if `flags` has
    /// `O_CREAT`, and set to it whatever the umask or an earlier `chmod` made of it.
    func open(_ path: String, _ flags: Int32, mode: mode_t? = nil) throws -> Int32 {
        let fd = operations.open(path, flags | O_CLOEXEC, mode ?? 0)
        guard fd >= 0 else { throw SystemCallError(call: "open", errno: errno) }
        if let mode, operations.fchmod(fd, mode) != 0 {
            let code = errno
            close(fd)
            throw SystemCallError(call: "fchmod", errno: code)
        }
        return fd
    }

    /// Closes `fd`. Its result is not acted on, on purpose: Linux releases the descriptor whatever
    /// `close` returns (retrying could close another file's), and whether what was written is
    /// durable was decided by the `fsync` or `fdatasync` before it, which is checked.
    func close(_ fd: Int32) {
        _ = operations.close(fd)
    }

    /// Writes all of `bytes`, continuing after short writes and EINTR. Throws on an error, on a
    /// write that writes nothing, or on one that claims more than it was given.
    func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var written = 0
        while written < bytes.count {
            let n = operations.write(fd, UnsafeRawBufferPointer(rebasing: bytes[written...]))
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                throw SystemCallError(call: "write", errno: code)
            }
            guard n > 0, n <= bytes.count - written else { throw SystemCallError(call: "write", errno: EIO) }
            written += n
        }
    }

    func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeAll(fd, $0) }
    }

    func fsync(_ fd: Int32) throws {
        if operations.fsync(fd) != 0 { throw SystemCallError(call: "fsync", errno: errno) }
    }

    func fdatasync(_ fd: Int32) throws {
        if operations.fdatasync(fd) != 0 { throw SystemCallError(call: "fdatasync", errno: errno) }
    }

    func truncate(_ fd: Int32, to length: Int) throws {
        if operations.ftruncate(fd, length) != 0 { throw SystemCallError(call: "ftruncate", errno: errno) }
    }

    /// The size of the open file `fd`.
    func size(of fd: Int32) throws -> Int {
        var st = Glibc.stat()
        guard operations.fstat(fd, &st) == 0 else { throw SystemCallError(call: "fstat", errno: errno) }
        return Int(st.st_size)
    }

    /// Reads up to `buffer.count` bytes at `offset`, continuing after short reads and EINTR;
    /// returns how many were read (fewer at the end of the file).
    func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = operations.pread(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), offset + done)
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                throw SystemCallError(call: "pread", errno: code)
            }
            if n == 0 { break }
            guard n <= buffer.count - done else { throw SystemCallError(call: "pread", errno: EIO) }
            done += n
        }
        return done
    }

    /// Takes the exclusive lock on `fd` without waiting.
    func lock(_ fd: Int32) throws {
        if operations.flock(fd, LOCK_EX | LOCK_NB) != 0 { throw SystemCallError(call: "flock", errno: errno) }
    }

    func unlock(_ fd: Int32) throws {
        if operations.flock(fd, LOCK_UN) != 0 { throw SystemCallError(call: "flock", errno: errno) }
    }

    // MARK: Whole files

    /// Every byte of the file at `path`. With `mode`, the file is set to it first.
    func readAll(_ path: String, mode: mode_t? = nil) throws -> [UInt8] {
        let fd = try open(path, O_RDONLY, mode: mode)
        defer { close(fd) }
        let size = try size(of: fd)
        var bytes = try [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            count = try readFully(fd, into: UnsafeMutableRawBufferPointer(buffer), at: 0)
        }
        // It grew since the fstat (not a journal file: those are only written under the lock).
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = try chunk.withUnsafeMutableBytes { try readFully(fd, into: $0, at: bytes.count) }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
        }
    }

    /// Creates (or truncates) `path` with mode 0600, writes `bytes` and fsyncs it. The caller
    /// fsyncs the directory when the new entry must survive a power loss.
    func writeFile(_ bytes: UnsafeRawBufferPointer, to path: String) throws {
        let fd = try open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        defer { close(fd) }
        try writeAll(fd, bytes)
        try fsync(fd)
    }

    /// Replaces `path` atomically: writes `temporary` (0600, fsync'd), renames it over `path` and
    /// fsyncs `directory`. On failure the temporary file is removed and `path` is as it was.
    func replaceFile(_ bytes: [UInt8], at path: String, temporary: String, directory: String) throws {
        do {
            try bytes.withUnsafeBytes { try writeFile($0, to: temporary) }
            try rename(temporary, path)
        } catch {
            // Best effort: the error reported is the first one; a leftover temporary file is
            // ignored by every reader and replaced by the next write.
            _ = try? unlinkIfPresent(temporary)
            throw error
        }
        try fsyncDirectory(directory)
    }

    // MARK: Directory entries

    func rename(_ from: String, _ to: String) throws {
        if operations.rename(from, to) != 0 { throw SystemCallError(call: "rename", errno: errno) }
    }

    func unlink(_ path: String) throws {
        if operations.unlink(path) != 0 { throw SystemCallError(call: "unlink", errno: errno) }
    }

    /// Removes `path`; a file that is already gone is not an error. Returns whether it removed one.
    @discardableResult
    func unlinkIfPresent(_ path: String) throws -> Bool {
        if operations.unlink(path) == 0 { return true }
        let code = errno
        if code == ENOENT { return false }
        throw SystemCallError(call: "unlink", errno: code)
    }

    func mkdir(_ path: String, mode: mode_t) throws {
        if operations.mkdir(path, mode) != 0 { throw SystemCallError(call: "mkdir", errno: errno) }
    }

    func chmod(_ path: String, _ mode: mode_t) throws {
        if operations.chmod(path, mode) != 0 { throw SystemCallError(call: "chmod", errno: errno) }
    }

    /// `lstat` of `path`; nil when there is nothing there (or it cannot be looked at: the call
    /// that creates or opens it then reports why).
    func lstat(_ path: String) -> Glibc.stat? {
        var st = Glibc.stat()
        return operations.lstat(path, &st) == 0 ? st : nil
    }

    /// `stat` of `path` (following a symbolic link); nil as for `lstat`.
    func stat(_ path: String) -> Glibc.stat? {
        var st = Glibc.stat()
        return operations.stat(path, &st) == 0 ? st : nil
    }

    /// The size of the file at `path`; nil when there is none.
    func size(at path: String) -> Int? {
        stat(path).map { Int($0.st_size) }
    }

    func list(_ directory: String) throws -> [String] {
        guard let names = operations.listDirectory(directory) else { throw SystemCallError(call: "opendir", errno: errno) }
        return names
    }

    /// fsyncs a directory, so that the entries created, renamed or removed in it survive a power
    /// loss. Throws `StorageError` `.ioFailed` naming the directory.
    func fsyncDirectory(_ directory: String) throws {
        do {
            let fd = try open(directory, O_RDONLY | O_DIRECTORY)
            defer { close(fd) }
            try fsync(fd)
        } catch {
            throw StorageError(code: .ioFailed, message: "fsync of directory \(directory) failed; check the disk.", cause: error as? SystemCallError)
        }
    }
}

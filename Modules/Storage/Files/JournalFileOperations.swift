// The file-system seam of the Storage module: every system call the journal, the removal
// checkpoint, the owner-only directories and the definition cache make goes through one of these
// closures, so that a test can make any of them fail (ENOSPC on write, EIO on fsync, a short
// write, a failed rename, a refused fallocate) and clear the fault again. `FileIO` is the only
// caller; it checks every result.

#if canImport(Glibc)
public import Glibc
#endif

/// The file system calls the Storage module makes, one closure per system call. Each returns what
/// the system call returns and leaves the error in `errno`; the defaults call the system. Tests
/// replace one or a few to inject failures.
public struct JournalFileOperations: Sendable {
    public var write: @Sendable (Int32, UnsafeRawBufferPointer) -> Int
    public var fdatasync: @Sendable (Int32) -> Int32
    /// `fsync` of a file or of a directory.
    public var fsync: @Sendable (Int32) -> Int32
    public var ftruncate: @Sendable (Int32, Int) -> Int32
    /// `fallocate(fd, 0, offset, length)`: allocates the range, extending the file's size.
    public var fallocate: @Sendable (Int32, Int, Int) -> Int32
    /// `lseek(fd, offset, SEEK_SET)`: where the next `write` on the descriptor writes.
    public var lseek: @Sendable (Int32, Int) -> Int
    /// `open(path, flags, mode)`: segments, the lock, kept copies, the checkpoint, the probe,
    /// directories opened to fsync them, files opened for reading.
    public var open: @Sendable (String, Int32, mode_t) -> Int32
    /// `close`; its result is not acted on (Linux releases the descriptor whatever it returns,
    /// and a write's durability is decided by the fsync before it).
    public var close: @Sendable (Int32) -> Int32
    /// `pread(fd, buffer, offset)`.
    public var pread: @Sendable (Int32, UnsafeMutableRawBufferPointer, Int) -> Int
    public var rename: @Sendable (String, String) -> Int32
    public var unlink: @Sendable (String) -> Int32
    public var mkdir: @Sendable (String, mode_t) -> Int32
    public var fchmod: @Sendable (Int32, mode_t) -> Int32
    public var chmod: @Sendable (String, mode_t) -> Int32
    /// `fstat` of a descriptor.
    public var fstat: @Sendable (Int32, inout Glibc.stat) -> Int32
    /// `lstat` of a path (a symbolic link is not followed).
    public var lstat: @Sendable (String, inout Glibc.stat) -> Int32
    /// `stat` of a path.
    public var stat: @Sendable (String, inout Glibc.stat) -> Int32
    /// `flock(fd, operation)`.
    public var flock: @Sendable (Int32, Int32) -> Int32
    /// The names in a directory (without `.` and `..`, in no order); nil with `errno` set when it
    /// cannot be read.
    public var listDirectory: @Sendable (String) -> [String]?

    public init(
        write: @escaping @Sendable (Int32, UnsafeRawBufferPointer) -> Int = { fd, buf in Glibc.write(fd, buf.baseAddress, buf.count) },
        fdatasync: @escaping @Sendable (Int32) -> Int32 = { Glibc.fdatasync($0) },
        fsync: @escaping @Sendable (Int32) -> Int32 = { Glibc.fsync($0) },
        ftruncate: @escaping @Sendable (Int32, Int) -> Int32 = { Glibc.ftruncate($0, off_t($1)) },
        fallocate: @escaping @Sendable (Int32, Int, Int) -> Int32 = JournalFileOperations.systemFallocate,
        lseek: @escaping @Sendable (Int32, Int) -> Int = { Int(Glibc.lseek($0, off_t($1), SEEK_SET)) },
        open: @escaping @Sendable (String, Int32, mode_t) -> Int32 = { Glibc.open($0, $1, $2) },
        close: @escaping @Sendable (Int32) -> Int32 = { Glibc.close($0) },
        pread: @escaping @Sendable (Int32, UnsafeMutableRawBufferPointer, Int) -> Int = { fd, buf, offset in Glibc.pread(fd, buf.baseAddress, buf.count, off_t(offset)) },
        rename: @escaping @Sendable (String, String) -> Int32 = { Glibc.rename($0, $1) },
        unlink: @escaping @Sendable (String) -> Int32 = { Glibc.unlink($0) },
        mkdir: @escaping @Sendable (String, mode_t) -> Int32 = { Glibc.mkdir($0, $1) },
        fchmod: @escaping @Sendable (Int32, mode_t) -> Int32 = { Glibc.fchmod($0, $1) },
        chmod: @escaping @Sendable (String, mode_t) -> Int32 = { Glibc.chmod($0, $1) },
        fstat: @escaping @Sendable (Int32, inout Glibc.stat) -> Int32 = { Glibc.fstat($0, &$1) },
        lstat: @escaping @Sendable (String, inout Glibc.stat) -> Int32 = { Glibc.lstat($0, &$1) },
        stat: @escaping @Sendable (String, inout Glibc.stat) -> Int32 = { systemStat($0, &$1) },
        flock: @escaping @Sendable (Int32, Int32) -> Int32 = { systemFlock($0, $1) },
        listDirectory: @escaping @Sendable (String) -> [String]? = JournalFileOperations.systemListDirectory
    ) {
        self.write = write
        self.fdatasync = fdatasync
        self.fsync = fsync
        self.ftruncate = ftruncate
        self.fallocate = fallocate
        self.lseek = lseek
        self.open = open
        self.close = close
        self.pread = pread
        self.rename = rename
        self.unlink = unlink
        self.mkdir = mkdir
        self.fchmod = fchmod
        self.chmod = chmod
        self.fstat = fstat
        self.lstat = lstat
        self.stat = stat
        self.flock = flock
        self.listDirectory = listDirectory
    }

    /// `fallocate(fd, 0, offset, length)`. glibc has it, but as a GNU extension the Glibc module
    /// does not import it: it is looked up by name (where it is missing, `ENOSYS`).
    @Sendable public static func systemFallocate(_ fd: Int32, _ offset: Int, _ length: Int) -> Int32 {
        typealias Fallocate = @convention(c) (Int32, Int32, off_t, off_t) -> Int32
        guard let symbol = dlsym(nil, "fallocate") else {
            errno = ENOSYS
            return -1
        }
        return unsafeBitCast(symbol, to: Fallocate.self)(fd, 0, off_t(offset), off_t(length))
    }

    /// `opendir`/`readdir`/`closedir`: the names in `path`, or nil with `errno` set.
    @Sendable public static func systemListDirectory(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }  // result not acted on: nothing was written through it
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                return errno == 0 ? names : nil
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }
}

// `Glibc.stat(…)` and `Glibc.flock(…)` name the structs; unqualified, outside the type, the calls.
@usableFromInline func systemStat(_ path: String, _ st: inout stat) -> Int32 { stat(path, &st) }
@usableFromInline func systemFlock(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }

// A copy of the file-system seam whose every call first asks a check whether the calling thread
// may block. The daemon uses it, in debug builds, to fail at once when a file operation of the
// Storage module is reached from one of its event loops (where a blocking call would stall every
// connection of that loop), so that the whole test suite checks the rule.

#if canImport(Glibc)
import Glibc
#endif

extension JournalFileOperations {
    /// The names `checkingCalls(_:)` passes to its check, one for each system call of the seam
    /// (every stored closure). A test compares this list with the stored closures, so a call
    /// added to the seam cannot be left unchecked.
    public static let checkedCallNames = [
        "write", "fdatasync", "fsync", "ftruncate", "fallocate", "lseek", "open", "close", "pread", "rename", "unlink",
        "mkdir", "fchmod", "chmod", "fstat", "lstat", "stat", "flock", "listDirectory",
    ]

    /// These operations, each calling `check` with its name (from ``checkedCallNames``) before
    /// the system call. `check` decides what to do about a call made where it must not be: the
    /// daemon's traps in debug builds.
    public func checkingCalls(_ check: @escaping @Sendable (String) -> Void) -> JournalFileOperations {
        let base = self
        return JournalFileOperations(
            write: { check("write"); return base.write($0, $1) },
            fdatasync: { check("fdatasync"); return base.fdatasync($0) },
            fsync: { check("fsync"); return base.fsync($0) },
            ftruncate: { check("ftruncate"); return base.ftruncate($0, $1) },
            fallocate: { check("fallocate"); return base.fallocate($0, $1, $2) },
            lseek: { check("lseek"); return base.lseek($0, $1) },
            open: { check("open"); return base.open($0, $1, $2) },
            close: { check("close"); return base.close($0) },
            pread: { check("pread"); return base.pread($0, $1, $2) },
            rename: { check("rename"); return base.rename($0, $1) },
            unlink: { check("unlink"); return base.unlink($0) },
            mkdir: { check("mkdir"); return base.mkdir($0, $1) },
            fchmod: { check("fchmod"); return base.fchmod($0, $1) },
            chmod: { check("chmod"); return base.chmod($0, $1) },
            fstat: { check("fstat"); return base.fstat($0, &$1) },
            lstat: { check("lstat"); return base.lstat($0, &$1) },
            stat: { check("stat"); return base.stat($0, &$1) },
            flock: { check("flock"); return base.flock($0, $1) },
            listDirectory: { check("listDirectory"); return base.listDirectory($0) }
        )
    }
}

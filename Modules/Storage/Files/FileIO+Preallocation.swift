// Preallocating a file and writing at a tracked offset: the journal's active segment is made its
// full size before records are written into it, so that an append does not change the file's size
// and its fdatasync writes the data page alone (not the inode and the file system's journal).

#if canImport(Glibc)
import Glibc
#endif

extension FileIO {
    /// How a file was preallocated.
    enum Preallocation: Equatable {
        /// `fallocate` allocated the range.
        case allocated
        /// The file system refused `fallocate` (`EOPNOTSUPP`): zeros were written and fdatasync'd.
        case zeroFilled
    }

    /// Positions `fd` at `offset`: the next `write` on it writes there.
    func seek(_ fd: Int32, to offset: Int) throws {
        let at = operations.lseek(fd, offset)
        guard at == offset else { throw SystemCallError(call: "lseek", errno: at < 0 ? errno : EIO) }
    }

    /// Makes the file `fd` at least `length` bytes long, with its blocks allocated, from `from`
    /// (its current end): `fallocate`, or where the file system refuses it, zeros written in 1 MiB
    /// pieces and fdatasync'd. Leaves the descriptor's position undefined: seek before writing.
    /// Throws `SystemCallError` when neither works; the file may then be longer than before, and
    /// what was added reads as zeros.
    func preallocate(_ fd: Int32, from: Int, to length: Int) throws -> Preallocation {
        guard length > from else { return .allocated }
        if operations.fallocate(fd, from, length - from) == 0 { return .allocated }
        let code = errno
        guard code == EOPNOTSUPP || code == ENOSYS else { throw SystemCallError(call: "fallocate", errno: code) }
        try seek(fd, to: from)
        let zeros = [UInt8](repeating: 0, count: min(1 << 20, length - from))
        var at = from
        while at < length {
            let count = min(zeros.count, length - at)
            try zeros.withUnsafeBytes { try writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            at += count
        }
        try fdatasync(fd)
        return .zeroFilled
    }
}

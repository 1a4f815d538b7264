// The journal's file helpers: creating files and segments, fsyncing directories, and reading a
// segment back on open (recovery of torn tails and mid-segment corruption).

#if canImport(Glibc)
import Glibc
#endif
import Foundation

extension Journal {
    // MARK: Files

    static func createFile(_ path: String, flags: Int32) throws -> Int32 {
        let fd = open(path, flags | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError(code: .ioFailed, message: "Cannot create \(path); check permissions and free space.", cause: SystemCallError(call: "open", errno: errno)) }
        fchmod(fd, 0o600)
        return fd
    }

    /// Writes all of `bytes` to `fd` through the file-operations seam, continuing after short
    /// writes and EINTR; throws on an error or on a write that writes nothing.
    func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var written = 0
        try bytes.withUnsafeBytes { raw in
            while written < raw.count {
                let n = options.fileOperations.write(fd, UnsafeRawBufferPointer(rebasing: raw[written...]))
                if n < 0 && errno == EINTR { continue }
                if n < 0 { throw SystemCallError(call: "write", errno: errno) }
                if n == 0 { throw SystemCallError(call: "write", errno: EIO) }
                written += n
            }
        }
    }

    /// fsyncs a directory, so that the entries created or removed in it survive a power loss.
    static func fsyncDirectory(_ directory: String, operations: JournalFileOperations = JournalFileOperations()) throws {
        let fd = operations.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw StorageError(code: .ioFailed, message: "Cannot open directory \(directory) to fsync it.", cause: SystemCallError(call: "open", errno: errno)) }
        defer { Glibc.close(fd) }
        if operations.fsync(fd) != 0 { throw StorageError(code: .ioFailed, message: "fsync of directory \(directory) failed; check the disk.", cause: SystemCallError(call: "fsync", errno: errno)) }
    }

    static func segmentName(_ firstSequence: UInt64) -> String {
        let hex = String(firstSequence, radix: 16)
        return "segment-" + String(repeating: "0", count: 16 - hex.count) + hex + ".log"
    }

    /// Creates a segment (0600) and fsyncs the directory; when that fails, the new file is
    /// removed again.
    static func createSegment(directory: String, firstSequence: UInt64, operations: JournalFileOperations = JournalFileOperations()) throws -> Int32 {
        let path = directory + "/" + segmentName(firstSequence)
        let fd = operations.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError(code: .ioFailed, message: "Cannot create \(path); check permissions and free space.", cause: SystemCallError(call: "open", errno: errno)) }
        fchmod(fd, 0o600)
        do {
            try fsyncDirectory(directory, operations: operations)
        } catch {
            Glibc.close(fd)
            if fileSize(path) == 0 { unlink(path) }
            throw error
        }
        return fd
    }

    /// Sets every regular file in the journal directory to 0600: segments, kept copies, the lock
    /// and the checkpoint, whoever loosened them.
    static func tightenModes(_ directory: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            var st = stat()
            let path = directory + "/" + name
            guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_mode & 0o7777 != 0o600 else { continue }
            chmod(path, 0o600)
        }
    }

    static func sendableCause(_ error: any Error) -> (any Error & Sendable)? {
        if let e = error as? SystemCallError { return e }
        if let e = error as? StorageError { return e }
        return nil
    }

    /// `duration` for a semaphore wait, at most a day (a longer sync interval then syncs early).
    static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        guard duration > .zero else { return .nanoseconds(0) }
        guard duration < .seconds(86_400) else { return .seconds(86_400) }
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    static func segmentNames(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix("segment-") && $0.hasSuffix(".log") }
            .sorted()
    }

    /// Reads one segment, cutting a torn tail or keeping a corrupt segment aside, and hands each
    /// valid record to `found` with its offset. Returns the segment's size once recovered.
    static func recover(segment name: String, directory: String, maxPayload: Int, problems: inout [RecoveryProblem], found: (JournalRecord, Int) throws -> Void) throws -> Int {
        let path = directory + "/" + name
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StorageError(code: .ioFailed, message: "Cannot read segment \(path); check permissions.")
        }
        let bytes = data
        var goodEnd = 0
        var resynced = false
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                if let r = Frame.decode(raw, at: offset, maxPayload: maxPayload) {
                    try found(r.0, offset)
                    offset += r.1
                    goodEnd = offset
                } else {
                    // Resynchronise: look for the next valid frame after the bad one.
                    var probe = offset + 1
                    var found = false
                    while probe + Frame.headerSize <= raw.count {
                        if raw[probe] == 0x53, Frame.decode(raw, at: probe, maxPayload: maxPayload) != nil { found = true; break }
                        probe += 1
                    }
                    if !found { break }
                    resynced = true
                    offset = probe
                }
            }
        }
        if resynced {
            let kept = path + ".corrupt"
            if !FileManager.default.fileExists(atPath: kept) {
                let fd = try createFile(kept, flags: O_WRONLY | O_CREAT | O_TRUNC)
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                fsync(fd)
                Glibc.close(fd)
                try fsyncDirectory(directory)
            }
            problems.append(RecoveryProblem(kind: .corruptSegment, segment: name, offset: 0, keptAt: kept))
        }
        if goodEnd < bytes.count {
            let kept = path + ".torn-\(goodEnd)"
            let fd = try createFile(kept, flags: O_WRONLY | O_CREAT | O_TRUNC)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + goodEnd, $0.count - goodEnd) }
            fsync(fd)
            Glibc.close(fd)
            let sfd = open(path, O_WRONLY | O_CLOEXEC)
            guard sfd >= 0, ftruncate(sfd, off_t(goodEnd)) == 0, fsync(sfd) == 0 else {
                throw StorageError(code: .ioFailed, message: "Cannot cut the torn tail of \(path); check permissions.", cause: SystemCallError(call: "ftruncate", errno: errno))
            }
            Glibc.close(sfd)
            try fsyncDirectory(directory)
            problems.append(RecoveryProblem(kind: .tornTail, segment: name, offset: goodEnd, keptAt: kept))
        }
        // A torn tail was cut back to goodEnd; otherwise the last good frame ends the file.
        return goodEnd
    }
}

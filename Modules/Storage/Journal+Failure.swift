// What the journal does when a write or a sync fails: it refuses appends (nothing is acknowledged
// without durability), cuts the active segment back to its acknowledged records, and accepts
// again once a write and its fdatasync succeed, without a restart.
//
// After a failed fdatasync or fsync, nothing that sync covered is trusted (the kernel may have
// dropped those pages while keeping their content in its cache): the segment is reopened, cut
// back to the end of the last successful sync, the acknowledged records written since are written
// again from memory, and the file is fsync'd and checked before anything else is accepted.

#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Why a journal refuses appends, and since when.
public struct JournalFailure: Sendable, Hashable {
    /// The system call that failed last: `write`, `fdatasync`, `fsync`, `ftruncate`, `open`, …
    public var call: String
    /// Its errno (0 when unknown).
    public var errno: Int32
    /// When the journal started refusing appends; later failures of the same outage keep it.
    public var since: Date

    /// The errno's symbolic name: `ENOSPC`, `EIO`, …
    public var errnoName: String { SystemCallError.name(of: errno) }
    /// The system's text for the errno: `No space left on device`.
    public var errnoText: String { String(cString: strerror(errno)) }
}

extension Journal {
    /// Makes the journal fail: tries at once to restore the active segment (so that what is on
    /// disk is the acknowledged records again), then fails `batch` and every pending append;
    /// later appends fail until a write succeeds again.
    func fail(_ error: any Error, batch: [Pending]) {
        needsRestore = true
        var refusal = noteFailure(error)
        do {
            try restoreActiveSegment()
        } catch {
            refusal = noteFailure(error)
        }
        let rest = state.withLock { s -> [Pending] in
            defer { s.pending = [] }
            return s.pending
        }
        for p in batch + rest { p.continuation.resume(throwing: refusal) }
    }

    /// Records `error` as the journal's failure (keeping the time of the first failure of the
    /// outage) and returns the error appends get meanwhile.
    @discardableResult
    func noteFailure(_ error: any Error) -> StorageError {
        let cause = Journal.systemCallError(error)
        let (refusal, first) = state.withLock { s -> (StorageError, Bool) in
            let since = s.failure?.info.since ?? Date()
            let info = JournalFailure(call: cause?.call ?? "unknown", errno: cause?.errno ?? 0, since: since)
            let seconds = Double(options.retryInterval.components.seconds) + Double(options.retryInterval.components.attoseconds) / 1e18
            let refusal = StorageError(
                code: .failedClosed,
                message: "The journal in \(directory) cannot write durably (\(info.call) failed with \(info.errnoName): \(info.errnoText)) since \(since); nothing was acknowledged without being durable. It accepts again by itself once a write succeeds (tried with each append and every \(seconds) s): free space in \(directory) or check the disk.",
                cause: Journal.sendableCause(error))
            defer { s.failure = (info, refusal) }
            return (refusal, s.failure == nil)
        }
        if first {
            logger.error("journal failed; appends are refused until it can write again", metadata: ["directory": "\(directory)", "cause": "\(error)"])
        } else {
            logger.debug("journal still cannot write", metadata: ["directory": "\(directory)", "cause": "\(error)"])
        }
        return refusal
    }

    /// Tries to leave the failed state: restores the active segment if it is in doubt, then, with
    /// `probe`, checks that a write and its fdatasync succeed (when no append is there to try).
    func attemptRecovery(probe: Bool) {
        do {
            if needsRestore { try restoreActiveSegment() }
            if probe {
                try probeWrite()
                writesAgain()
            }
        } catch {
            noteFailure(error)
        }
    }

    /// Clears the failure once a write and its sync succeeded.
    func writesAgain() {
        guard let failure = state.withLock({ s -> JournalFailure? in
            defer { s.failure = nil }
            return s.failure?.info
        }) else { return }
        logger.notice("journal writes again; appends are accepted", metadata: ["directory": "\(directory)", "failedSince": "\(failure.since)", "cause": "\(failure.call): \(failure.errnoName)"])
    }

    /// Brings the active segment back to its acknowledged records, durably: closes the descriptor
    /// (a failed sync's error state stays with it), removes an empty segment a failed rotation
    /// left, reopens the segment, cuts it to the end of its last successful sync, writes the
    /// acknowledged records since then again, fsyncs, and checks the size and the last record.
    func restoreActiveSegment() throws {
        if segmentFD >= 0 {
            Glibc.close(segmentFD)
            segmentFD = -1
        }
        let ops = options.fileOperations
        var removed = false
        for name in try Journal.segmentNames(directory) where name > segmentName && Journal.fileSize(directory + "/" + name) == 0 {
            if unlink(directory + "/" + name) == 0 { removed = true }
        }
        if removed { try Journal.fsyncDirectory(directory, operations: ops) }
        let path = directory + "/" + segmentName
        let fd = ops.open(path, O_WRONLY | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemCallError(call: "open", errno: errno) }
        var restored = false
        defer { if !restored { Glibc.close(fd) } }
        fchmod(fd, 0o600)
        if ops.ftruncate(fd, syncedBytes) != 0 { throw SystemCallError(call: "ftruncate", errno: errno) }
        try writeAll(fd, unsynced)
        if ops.fsync(fd) != 0 { throw SystemCallError(call: "fsync", errno: errno) }
        let end = syncedBytes + unsynced.count
        try checkSegment(fd: fd, path: path, end: end)
        restored = true
        segmentFD = fd
        state.withLock { [segmentBytes] in $0.diskBytes += end - segmentBytes }
        segmentBytes = end
        syncedBytes = end
        unsynced.removeAll(keepingCapacity: true)
        unsyncedSince = nil
        needsRestore = false
    }

    /// Checks what is on disk after a restore: the segment ends where the acknowledged records
    /// end, and the last of them reads back whole.
    private func checkSegment(fd: Int32, path: String, end: Int) throws {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw SystemCallError(call: "fstat", errno: errno) }
        guard Int(st.st_size) == end else {
            throw StorageError(code: .ioFailed, message: "Segment \(path) holds \(st.st_size) bytes after it was cut back to \(end); the segment changed underneath the journal.")
        }
        guard let last = lastAcknowledged else { return }
        let reader = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else { throw SystemCallError(call: "open", errno: errno) }
        defer { Glibc.close(reader) }
        _ = try Journal.readFrame(fd: reader, path: path, at: JournalLocation(sequence: last.sequence, segment: segmentName, offset: last.offset), maxPayload: options.maxPayloadSize)
    }

    /// Writes a page to a scratch file (`probe`) in the directory and fdatasyncs it: whether the
    /// journal could write durably now. The file is removed again.
    private func probeWrite() throws {
        let path = directory + "/probe"
        let ops = options.fileOperations
        let fd = ops.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemCallError(call: "open", errno: errno) }
        defer {
            Glibc.close(fd)
            unlink(path)
        }
        fchmod(fd, 0o600)
        try writeAll(fd, [UInt8](repeating: 0, count: 4096))
        if ops.fdatasync(fd) != 0 { throw SystemCallError(call: "fdatasync", errno: errno) }
    }

    /// The system call error inside `error`, if any.
    static func systemCallError(_ error: any Error) -> SystemCallError? {
        if let e = error as? SystemCallError { return e }
        if let e = error as? StorageError, let cause = e.cause { return systemCallError(cause) }
        return nil
    }
}

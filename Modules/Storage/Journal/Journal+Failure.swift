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
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Logging
import Synchronization

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
        failed = true
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
        guard failed else { return }
        failed = false
        guard let failure = state.withLock({ s -> JournalFailure? in
            defer { s.failure = nil }
            return s.failure?.info
        }) else { return }
        logger.notice("journal writes again; appends are accepted", metadata: ["directory": "\(directory)", "failedSince": "\(failure.since)", "cause": "\(failure.call): \(failure.errnoName)"])
    }

    /// Brings the active segment back to its acknowledged records, durably: closes the descriptor
    /// (a failed sync's error state stays with it), removes an empty segment a failed rotation
    /// left, reopens the segment, cuts it to the end of its last successful sync, writes the
    /// acknowledged records since then again, fsyncs, checks the size and the last record, and
    /// preallocates the segment again.
    func restoreActiveSegment() throws {
        if segmentFD >= 0 {
            io.close(segmentFD)
            segmentFD = -1
        }
        var removed = false
        // Newer segments hold no record (a header at most): a rotation that failed left them.
        for name in try Journal.segmentNames(directory, io: io) where name > segmentName && (io.size(at: directory + "/" + name) ?? 0) <= recordStart {
            if try io.unlinkIfPresent(directory + "/" + name) { removed = true }
        }
        if removed { try io.fsyncDirectory(directory) }
        let path = directory + "/" + segmentName
        let fd = try io.open(path, O_WRONLY, mode: 0o600)
        var restored = false
        defer { if !restored { io.close(fd) } }
        try io.truncate(fd, to: syncedBytes)
        try io.seek(fd, to: syncedBytes)
        try io.writeAll(fd, unsynced)
        try io.fsync(fd)
        let end = syncedBytes + unsynced.count
        try checkSegment(fd: fd, path: path, end: end)
        restored = true
        segmentFD = fd
        state.withLock { [segmentBytes] in
            $0.diskBytes += end - segmentBytes
            $0.reserved = 0
            $0.activeBytes = end
        }
        segmentBytes = end
        segmentAllocated = end
        syncedBytes = end
        unsynced.removeAll(keepingCapacity: true)
        unsyncedSince = nil
        // Preallocated again, the descriptor positioned at the end of the acknowledged records.
        try prepareActive()
        needsRestore = false
        // What was cut may have been written at the offsets that come next: a fresh salt first.
        if options.encryption != nil { rekeyBeforeWrite = true }
    }

    /// Checks what is on disk after a restore: the segment ends where the acknowledged records
    /// end, and the last of them reads back whole.
    private func checkSegment(fd: Int32, path: String, end: Int) throws {
        let size = try io.size(of: fd)
        guard size == end else {
            throw StorageError(code: .ioFailed, message: "Segment \(path) holds \(size) bytes after it was cut back to \(end); the segment changed underneath the journal.")
        }
        guard let last = lastAcknowledged else { return }
        let reader = try io.open(path, O_RDONLY)
        defer { io.close(reader) }
        // Only whether it reads back whole (CRC and sequence number checked) matters here.
        _ = try readFrame(fd: reader, path: path, at: JournalLocation(sequence: last.sequence, segment: segmentName, offset: last.offset), cipher: segmentCipher)
    }

    /// Writes a page to a scratch file (`probe`) in the directory and fdatasyncs it, removes it
    /// and fsyncs the directory: whether the journal could write durably now, a new segment
    /// included.
    private func probeWrite() throws {
        let path = directory + "/probe"
        let fd = try io.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        do {
            try io.writeAll(fd, [UInt8](repeating: 0, count: 4096))
            try io.fdatasync(fd)
        } catch {
            io.close(fd)
            // Best effort: the write's error is the one reported; a probe left behind is
            // truncated by the next one and removed by the first that succeeds.
            _ = try? io.unlinkIfPresent(path)
            throw error
        }
        io.close(fd)
        try io.unlinkIfPresent(path)
        try io.fsyncDirectory(directory)
    }

    /// The system call error inside `error`, if any.
    static func systemCallError(_ error: any Error) -> SystemCallError? {
        if let e = error as? SystemCallError { return e }
        if let e = error as? StorageError, let cause = e.cause { return systemCallError(cause) }
        return nil
    }

    static func sendableCause(_ error: any Error) -> (any Error & Sendable)? {
        if let e = error as? SystemCallError { return e }
        if let e = error as? StorageError { return e }
        return nil
    }
}

// Storage: a crash-safe append-only journal. Records are framed (magic, length, CRC32C, type,
// sequence number, payload) in segment files; one dedicated writer thread group-commits pending
// appends into one write and one fdatasync, and each caller resumes only after the fdatasync that
// covers its record returned (unless the journal is relaxed or the append asks for `deferSync`).
// Opening recovers torn tails and reports mid-segment corruption (Journal+Files.swift); a failed
// write or sync makes the journal refuse appends until it can write again, without a restart
// (Journal+Failure.swift). The on-disk format is documented in doc/journal-format.md.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Synchronization


/// A crash-safe append-only journal in one directory. Safe to share between tasks.
public final class Journal: Sendable {
    /// Records recovered on open, in sequence order.
    public let recovered: [JournalRecord]
    /// Problems found and handled on open.
    public let recoveryReport: [RecoveryProblem]
    /// The journal directory.
    public let directory: String

    struct Pending {
        var type: UInt8
        var payload: [UInt8]
        var mayExceedCap: Bool
        var startsSegment: Bool
        var alwaysDurable: Bool
        var deferSync: Bool
        var continuation: CheckedContinuation<JournalLocation, any Error>
    }

    struct State {
        var pending: [Pending] = []
        /// Set while the journal cannot write durably (`Journal+Failure.swift`); appends fail
        /// with `error` until a write succeeds again.
        var failure: (info: JournalFailure, error: StorageError)?
        var closing = false
        /// The segment appends go to; written by the writer thread under the lock.
        var activeSegment = ""
        /// Bytes in the segment files: the writer adds what it writes, removal subtracts.
        var diskBytes = 0
    }

    let state: Mutex<State>
    let wakeup = DispatchSemaphore(value: 0)
    private let writerDone = DispatchSemaphore(value: 0)
    let options: JournalOptions
    /// `options.segmentSize`, or a quarter of the disk cap when that is smaller: with a cap, the
    /// active segment (which is never removed) must leave room for the removable ones.
    private let segmentLimit: Int
    private let lockFD: Int32
    let logger: Logger
    // Writer-thread-only state, never touched by other threads after open.
    nonisolated(unsafe) var segmentFD: Int32
    nonisolated(unsafe) var segmentName: String
    /// The end of the last record written to the active segment.
    nonisolated(unsafe) var segmentBytes: Int
    nonisolated(unsafe) var nextSequence: UInt64
    /// The end of what the last successful fdatasync (or fsync) of the active segment covered.
    nonisolated(unsafe) var syncedBytes: Int
    /// The acknowledged records of the active segment after `syncedBytes`, as written: those
    /// acknowledged before their fdatasync (relaxed mode, `deferSync`). After a failed sync they
    /// are written again from here, so that none is lost while the process lives.
    nonisolated(unsafe) var unsynced: [UInt8] = []
    /// The offset and sequence number of the last acknowledged record of the active segment.
    nonisolated(unsafe) var lastAcknowledged: (offset: Int, sequence: UInt64)?
    /// When the oldest written but not yet fdatasync'd bytes were written (relaxed mode, or
    /// `deferSync` records in strict mode); nil when everything written is durable.
    nonisolated(unsafe) var unsyncedSince: ContinuousClock.Instant?
    /// True while a failure may have left bytes after the acknowledged records, or a descriptor
    /// that cannot be trusted: the active segment is restored before anything is written.
    nonisolated(unsafe) var needsRestore = false
    /// Read-only descriptors of segments that `read(at:)` has read, by name. Reads hold the lock
    /// while they use a descriptor, so removing a segment never closes one under a reader.
    let readers = Mutex<[String: Int32]>([:])
    /// Segments kept open for reading at most; beyond that, the others are closed.
    static let maxOpenReaders = 8
    /// Acknowledged bytes that may wait for their fdatasync at most: beyond, the writer syncs.
    static let maxUnsyncedBytes = 8 << 20

    /// Opens (creating if needed) the journal in `directory`, recovering what is there.
    /// Throws `StorageError` with code `.locked` when another opener holds the directory.
    ///
    /// With `visit`, each recovered record is handed to it with its location, in file order
    /// (segment by segment), and `recovered` stays empty: an owner with many records keeps only
    /// what it needs in memory. Without it, `recovered` holds every record in sequence order.
    ///
    /// The directory is created 0700 (its parent fsync'd); every file in it is set to 0600.
    public init(directory: String, options: JournalOptions = JournalOptions(), logger: Logger, visit: ((JournalRecord, JournalLocation) throws -> Void)? = nil) throws {
        self.directory = directory
        self.options = options
        self.segmentLimit = options.diskCap.map { min(options.segmentSize, max(4096, $0 / 4)) } ?? options.segmentSize
        self.logger = logger
        try PrivateDirectory.create(directory, operations: options.fileOperations)
        let lfd = try Journal.createFile(directory + "/lock", flags: O_RDWR | O_CREAT)
        if flock(lfd, LOCK_EX | LOCK_NB) != 0 {
            let e = errno
            Glibc.close(lfd)
            throw StorageError(code: .locked, message: "The journal directory \(directory) is already open in another process or instance; stop it or use another directory.", cause: SystemCallError(call: "flock", errno: e))
        }
        lockFD = lfd
        let recoveredBytes: Int
        do {
            Journal.tightenModes(directory)
            var problems: [RecoveryProblem] = []
            try Journal.finishRemoval(directory: directory)
            let segs = try Journal.segmentNames(directory)
            var records: [JournalRecord] = []
            var highest: UInt64 = 0
            var last: (offset: Int, sequence: UInt64)?
            var bytes = 0
            for name in segs {
                last = nil
                bytes += try Journal.recover(segment: name, directory: directory, maxPayload: options.maxPayloadSize, problems: &problems) { record, offset in
                    highest = max(highest, record.sequence)
                    last = (offset, record.sequence)
                    if let visit {
                        try visit(record, JournalLocation(sequence: record.sequence, segment: name, offset: offset))
                    } else {
                        records.append(record)
                    }
                }
            }
            records.sort { $0.sequence < $1.sequence }
            recoveredBytes = bytes
            recovered = records
            recoveryReport = problems
            nextSequence = highest + 1
            if let name = segs.last {
                let fd = Glibc.open(directory + "/" + name, O_WRONLY | O_APPEND | O_CLOEXEC)
                guard fd >= 0 else { throw StorageError(code: .ioFailed, message: "Cannot open segment \(name) in \(directory).", cause: SystemCallError(call: "open", errno: errno)) }
                fchmod(fd, 0o600)
                // What a previous run wrote may not be durable yet: make it so before relying on it.
                guard options.fileOperations.fsync(fd) == 0 else {
                    let e = errno
                    Glibc.close(fd)
                    throw StorageError(code: .ioFailed, message: "Cannot fsync segment \(name) in \(directory); check the disk.", cause: SystemCallError(call: "fsync", errno: e))
                }
                segmentFD = fd
                segmentName = name
                segmentBytes = Int(lseek(fd, 0, SEEK_END))
                lastAcknowledged = last
            } else {
                segmentName = Journal.segmentName(nextSequence)
                segmentFD = try Journal.createSegment(directory: directory, firstSequence: nextSequence, operations: options.fileOperations)
                segmentBytes = 0
            }
            syncedBytes = segmentBytes
        } catch {
            Glibc.close(lfd)
            throw error
        }
        state = Mutex(State(activeSegment: segmentName, diskBytes: recoveredBytes))
        let thread = Thread { [self] in self.writerLoop() }
        thread.name = "journal-writer"
        thread.start()
    }

    /// Appends one record and returns its sequence number once it is durable (after the covering
    /// fdatasync; once written, in relaxed mode or with `deferSync`).
    ///
    /// - Parameter deferSync: see ``appendLocated(type:payload:mayExceedCap:startsSegment:alwaysDurable:deferSync:)``.
    public func append(type: UInt8, payload: [UInt8], mayExceedCap: Bool = false, deferSync: Bool = false) async throws -> UInt64 {
        try await appendLocated(type: type, payload: payload, mayExceedCap: mayExceedCap, deferSync: deferSync).sequence
    }

    /// Appends one record and returns where it lies once it is durable.
    ///
    /// - Parameter mayExceedCap: true for a record that lets space be reclaimed (a marker that
    ///   settles earlier records, a live record carried forward by a compaction): it is written
    ///   even when it takes the journal over `JournalOptions.diskCap`, so that a full journal can
    ///   still drain.
    /// - Parameter startsSegment: true to write the record at the start of a new segment (unless
    ///   the active one is still empty), so that every older segment can be removed after it.
    /// - Parameter alwaysDurable: true to return only after the covering fdatasync even in relaxed
    ///   mode: for a record that the caller deletes other records on the strength of (a
    ///   compaction's carried copy, a snapshot).
    /// - Parameter deferSync: true to return once the record is written, as relaxed mode does,
    ///   with its fdatasync at most `JournalOptions.deferredSyncInterval` later (or sooner, with the
    ///   next append that waits for one): for a record whose loss in a power cut only repeats
    ///   work that is safe to repeat (a delivery marker: the upload is sent again with its
    ///   idempotency key). A crash of the process alone loses nothing written.
    public func appendLocated(type: UInt8, payload: [UInt8], mayExceedCap: Bool = false, startsSegment: Bool = false, alwaysDurable: Bool = false, deferSync: Bool = false) async throws -> JournalLocation {
        guard payload.count <= options.maxPayloadSize else {
            throw StorageError(code: .recordTooLarge, message: "A record of \(payload.count) bytes exceeds the maximum of \(options.maxPayloadSize) bytes; split it.")
        }
        return try await withCheckedThrowingContinuation { cont in
            // While the journal has failed, the append still goes to the writer: it is the next
            // attempt to write, and fails at once if the journal cannot write yet.
            let err: StorageError? = state.withLock { s in
                if s.closing { return StorageError(code: .closed, message: "The journal in \(directory) is closed; reopen it.") }
                s.pending.append(Pending(type: type, payload: payload, mayExceedCap: mayExceedCap, startsSegment: startsSegment, alwaysDurable: alwaysDurable, deferSync: deferSync, continuation: cont))
                return nil
            }
            if let err { cont.resume(throwing: err) } else { wakeup.signal() }
        }
    }

    /// Stops the writer after it has committed what is pending, and releases the directory lock.
    public func close() {
        let first = state.withLock { s in
            defer { s.closing = true }
            return !s.closing
        }
        guard first else { return }
        wakeup.signal()
        writerDone.wait()
        if segmentFD >= 0 { Glibc.close(segmentFD) }
        readers.withLock { readers in
            for fd in readers.values { Glibc.close(fd) }
            readers.removeAll()
        }
        // Unlock before closing: a child forked meanwhile (not yet exec'd) shares the open file
        // description, and closing our descriptor alone would leave the directory locked.
        flock(lockFD, LOCK_UN)
        Glibc.close(lockFD)
    }

    /// The error appends fail with while the journal cannot write durably; nil when it can.
    public var failure: StorageError? { state.withLock { $0.failure?.error } }

    /// Why and since when the journal refuses appends; nil while it accepts them.
    public var currentFailure: JournalFailure? { state.withLock { $0.failure?.info } }

    /// Bytes the segment files hold together (what `JournalOptions.diskCap` limits).
    public var diskBytes: Int { state.withLock { $0.diskBytes } }

    private func writerLoop() {
        var buffer: [UInt8] = []
        while true {
            let failed = state.withLock { $0.failure != nil }
            var timedOut = false
            if failed {
                timedOut = wakeup.wait(timeout: .now() + Journal.dispatchInterval(options.retryInterval)) == .timedOut
            } else if let since = unsyncedSince {
                let left = lazySyncInterval - (ContinuousClock.now - since)
                if left <= .zero || wakeup.wait(timeout: .now() + Journal.dispatchInterval(left)) == .timedOut {
                    syncWritten()
                    continue
                }
            } else {
                wakeup.wait()
            }
            let (batch, closing) = state.withLock { s -> ([Pending], Bool) in
                let b = s.pending
                s.pending = []
                return (b, s.closing)
            }
            // Failed: restore the active segment if needed; with no append to try, probe.
            if failed && !closing { attemptRecovery(probe: timedOut && batch.isEmpty) }
            if !batch.isEmpty { commit(batch, buffer: &buffer) }
            if closing && state.withLock({ $0.pending.isEmpty }) { break }
        }
        if unsyncedSince != nil && state.withLock({ $0.failure == nil }) { syncWritten() }
        writerDone.signal()
    }

    /// How long written records may wait for their fdatasync: relaxed mode's interval, or in
    /// strict mode the one for `deferSync` records.
    private var lazySyncInterval: Duration {
        if case .relaxed(let interval) = options.durability { return interval }
        return options.deferredSyncInterval
    }

    /// Makes what was written so far durable (relaxed mode, deferred records); a failure makes
    /// the journal fail until it can write again.
    private func syncWritten() {
        unsyncedSince = nil
        guard !needsRestore, segmentFD >= 0 else { return }
        do {
            try sync()
        } catch {
            fail(error, batch: [])
        }
    }

    /// fdatasync of the active segment; on success everything written is durable.
    private func sync() throws {
        if options.fileOperations.fdatasync(segmentFD) != 0 { throw SystemCallError(call: "fdatasync", errno: errno) }
        syncedBytes = segmentBytes
        unsynced.removeAll(keepingCapacity: true)
        unsyncedSince = nil
    }

    private func commit(_ batch: [Pending], buffer: inout [UInt8]) {
        if needsRestore, let f = state.withLock({ $0.failure?.error }) {
            for p in batch { p.continuation.resume(throwing: f) }
            return
        }
        // The disk cap: refuse what would go over it, before anything is written.
        var batch = batch
        if let cap = options.diskCap {
            var used = state.withLock { $0.diskBytes }
            var accepted: [Pending] = []
            accepted.reserveCapacity(batch.count)
            for p in batch {
                let size = Frame.headerSize + p.payload.count
                if p.mayExceedCap || used + size <= cap {
                    used += size
                    accepted.append(p)
                } else {
                    p.continuation.resume(throwing: StorageError(
                        code: .journalFull,
                        message: "The journal in \(directory) has reached its disk cap of \(cap) bytes (\(used) in use); nothing was written. Space comes back as delivered records are compacted away; deliver what is queued, or raise the cap."))
                }
            }
            batch = accepted
            if batch.isEmpty { return }
        }
        // A record that starts a segment ends the run before it: each run goes to one segment.
        var start = 0
        while start < batch.count {
            var end = start + 1
            while end < batch.count && !batch[end].startsSegment { end += 1 }
            do {
                // The first write after a failure waits for its fdatasync, whatever the mode:
                // only a successful one shows that the journal writes durably again.
                let recovering = state.withLock { $0.failure != nil }
                try writeRun(batch[start..<end], newSegment: batch[start].startsSegment, forceSync: recovering, buffer: &buffer)
                if recovering { writesAgain() }
            } catch {
                fail(error, batch: Array(batch[start...]))
                return
            }
            start = end
        }
    }

    /// Writes one run of records to the active segment (after starting a new one when it is full
    /// or `newSegment` asks for it), makes it durable as the mode says, and resumes the callers.
    /// When it throws, nothing of the run was acknowledged and its sequence numbers are free again.
    private func writeRun(_ run: ArraySlice<Pending>, newSegment: Bool, forceSync: Bool, buffer: inout [UInt8]) throws {
        let firstSequence = nextSequence
        var done = false
        defer { if !done { nextSequence = firstSequence } }
        if segmentBytes >= segmentLimit || (newSegment && segmentBytes > 0) {
            if unsyncedSince != nil || !unsynced.isEmpty { try sync() }
            try startSegment()
        }
        buffer.removeAll(keepingCapacity: true)
        var locations: [JournalLocation] = []
        locations.reserveCapacity(run.count)
        for p in run {
            locations.append(JournalLocation(sequence: nextSequence, segment: segmentName, offset: segmentBytes + buffer.count))
            Frame.encode(type: p.type, sequence: nextSequence, payload: p.payload, into: &buffer)
            nextSequence += 1
        }
        try writeAll(segmentFD, buffer)
        segmentBytes += buffer.count
        state.withLock { [count = buffer.count] in $0.diskBytes += count }
        let now = ContinuousClock.now
        var wantsSync: Bool
        switch options.durability {
        case .strict:
            wantsSync = !run.allSatisfy { $0.deferSync && !$0.alwaysDurable }
        case .relaxed(let interval):
            wantsSync = run.contains(where: \.alwaysDurable) || now - (unsyncedSince ?? now) >= interval
        }
        wantsSync = wantsSync || forceSync || unsynced.count + buffer.count > Journal.maxUnsyncedBytes
        if wantsSync {
            try sync()
        } else {
            unsynced.append(contentsOf: buffer)
            if unsyncedSince == nil { unsyncedSince = now }
        }
        done = true
        if let last = locations.last { lastAcknowledged = (last.offset, last.sequence) }
        for (p, location) in zip(run, locations) { p.continuation.resume(returning: location) }
    }

    /// Closes the active segment (everything in it is durable) and starts a new one.
    private func startSegment() throws {
        Glibc.close(segmentFD)
        segmentFD = -1
        // If this throws, the restore that follows reopens the old segment (`segmentName`).
        segmentFD = try Journal.createSegment(directory: directory, firstSequence: nextSequence, operations: options.fileOperations)
        segmentName = Journal.segmentName(nextSequence)
        segmentBytes = 0
        syncedBytes = 0
        lastAcknowledged = nil
        state.withLock { [segmentName] in $0.activeSegment = segmentName }
    }
}

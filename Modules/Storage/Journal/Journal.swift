// Storage: a crash-safe append-only journal. Records are framed (magic, length, CRC32C, type,
// sequence number, payload) in segment files; one dedicated writer thread group-commits pending
// appends into one write and one fdatasync, and each caller resumes only after the fdatasync that
// covers its record returned (unless the journal is relaxed or the append's kind defers it).
//
// One file per job, as the write-ahead logs it is modelled on:
//   JournalFormat.swift      the record frame
//   JournalOptions.swift     settings, locations, the kinds of append
//   Journal.swift            opening, appending, closing (this file)
//   Journal+Writer.swift     the writer thread: group commit, sync policy, disk cap
//   Journal+Recovery.swift   recovery on open: torn tails cut and kept, corrupt segments kept
//                            (Opening/: segments read a piece at a time into one buffer, their
//                            frame headers walked meanwhile, their frames checked on every core)
//   Journal+Reader.swift     scanning a segment, reading a record back by location
//   Journal+Segments.swift   segment files: creation, rotation, preallocation, listing, removal
//   Journal+Failure.swift    refusing appends after a failed write or sync, and recovering
//   Journal+Encryption.swift the key check on open, segments under a fresh salt (SegmentHeader.swift,
//                            RecordCipher.swift, JournalKey.swift: the header, the AEAD, the keys)
//   FileIO.swift             every system call, its result checked (JournalFileOperations.swift: the seam;
//                            FileIO+Preallocation.swift: fallocate or zeros, and lseek)
// The on-disk format is documented in doc/journal-format.md.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
public import Logging
import Synchronization

/// A crash-safe append-only journal in one directory. Safe to share between tasks.
public final class Journal: Sendable {
    /// Records recovered on open, in sequence order, until ``takeRecovered()`` takes them (then
    /// none): decrypted answers among them must not stay in memory once their owner replayed them.
    public var recovered: [JournalRecord] { recoveredRecords.withLock { $0 } }
    let recoveredRecords: Mutex<[JournalRecord]>
    /// Problems found and handled on open.
    public let recoveryReport: [RecoveryProblem]
    /// The segments in the clear set aside unread (`<segment>.unlisted`, file names) found when the
    /// journal was opened with a key: ones it did not list (doc/journal-format.md, "Migration and
    /// rotation"). Empty without a key.
    public let setAsideSegments: [String]
    /// The journal directory.
    public let directory: String

    struct Pending {
        var type: UInt8
        var payload: [UInt8]
        var kind: JournalAppendKind
        var continuation: CheckedContinuation<JournalLocation, any Error>
    }

    struct State {
        var pending: [Pending] = []
        /// Set while the journal cannot write durably (`Journal+Failure.swift`); appends fail
        /// with `error` until a write succeeds again.
        var failure: (info: JournalFailure, error: StorageError)?
        var closing = false
        /// Set by the writer once it has stopped and released the descriptors and the lock.
        var closed = false
        /// Called once the journal is closed (``close(then:)``).
        var closeWaiters: [@Sendable () -> Void] = []
        /// The segment appends go to; written by the writer thread under the lock.
        var activeSegment = ""
        /// Bytes of the segments' records (headers included): the writer adds what it writes,
        /// removal subtracts. What `JournalOptions.diskCap` limits.
        var diskBytes = 0
        /// The active segment's preallocated bytes past its records.
        var reserved = 0
        /// The end of the active segment's records.
        var activeBytes = 0
    }

    let state: Mutex<State>
    let wakeup = DispatchSemaphore(value: 0)
    /// True from the writer thread's start until the journal is closed (``close()`` waits for that).
    let writerRunning = Atomic<Bool>(true)
    let options: JournalOptions
    /// Every system call goes through it (and `options.fileOperations`, the seam).
    let io: FileIO
    /// `options.segmentSize`, or a quarter of the disk cap when that is smaller: with a cap, the
    /// active segment (which is never removed) must leave room for the removable ones.
    let segmentLimit: Int
    let lockFD: Int32
    let logger: Logger
    // Writer-thread-only state, never touched by other threads after open.
    nonisolated(unsafe) var segmentFD: Int32
    nonisolated(unsafe) var segmentName: String
    /// The end of the last record written to the active segment.
    nonisolated(unsafe) var segmentBytes: Int
    /// The active segment's size on disk: its preallocated end, or `segmentBytes` when the writes
    /// went past it (or it could not be preallocated).
    nonisolated(unsafe) var segmentAllocated = 0
    nonisolated(unsafe) var nextSequence: UInt64
    /// The end of what the last successful fdatasync (or fsync) of the active segment covered.
    nonisolated(unsafe) var syncedBytes: Int
    /// The acknowledged records of the active segment after `syncedBytes`, as written: those
    /// acknowledged before their fdatasync (relaxed mode, `.deferredMarker`). After a failed sync they
    /// are written again from here, so that none is lost while the process lives.
    nonisolated(unsafe) var unsynced: [UInt8] = []
    /// The offset and sequence number of the last acknowledged record of the active segment.
    nonisolated(unsafe) var lastAcknowledged: (offset: Int, sequence: UInt64)?
    /// When the oldest written but not yet fdatasync'd bytes were written (relaxed mode, or
    /// `.deferredMarker` records in strict mode); nil when everything written is durable.
    nonisolated(unsafe) var unsyncedSince: ContinuousClock.Instant?
    /// True while a failure may have left bytes after the acknowledged records, or a descriptor
    /// that cannot be trusted: the active segment is restored before anything is written.
    nonisolated(unsafe) var needsRestore = false
    /// The writer's own copy of `state.failure != nil`: only the writer thread sets and clears
    /// the failure, so it reads its own flag instead of taking the lock on every wake.
    nonisolated(unsafe) var failed = false
    /// Read-only descriptors of segments that `read(at:)` has read, by name. Reads hold the lock
    /// while they use a descriptor, so removing a segment never closes one under a reader.
    let readers = Mutex<[String: Int32]>([:])
    /// Each segment's cipher (nil in the clear) and protection, by name; the writer adds the
    /// segments it starts, removal takes them out.
    let segmentInfo: Mutex<[String: SegmentInfo]>
    /// The cipher of the active segment; nil when records are written in the clear. Writer-only.
    nonisolated(unsafe) var segmentCipher: RecordCipher?
    /// Set when the active segment was cut back after a failure, with encryption: the next write
    /// goes to a new segment under a fresh salt, so that no offset is written twice under one.
    nonisolated(unsafe) var rekeyBeforeWrite = false
    /// Segments kept open for reading at most; beyond that, the others are closed.
    static let maxOpenReaders = 8
    /// Acknowledged bytes that may wait for their fdatasync at most: beyond, the writer syncs.
    static let maxUnsyncedBytes = 8 << 20
    /// Appends the pending list has room for before it grows (it grows as needed beyond).
    static let batchCapacity = 256

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
        let segmentLimit = options.diskCap.map { min(options.segmentSize, max(4096, $0 / 4)) } ?? options.segmentSize
        self.segmentLimit = segmentLimit
        self.logger = logger
        let io = FileIO(options.fileOperations)
        self.io = io
        // Before anything is created or changed: a refused key leaves the directory as it was.
        var kinds = try Journal.inspect(directory: directory, keys: options.encryption, io: io)
        try PrivateDirectory.create(directory, operations: options.fileOperations)
        lockFD = try Journal.lock(directory, io: io)
        var recovered: Recovered
        do {
            try Journal.tightenModes(directory, io: io)
            try Journal.finishRemoval(directory: directory, io: io)
            let plainCheck = try options.encryption.map { try Journal.checkPlainSegments(directory: directory, kinds: &kinds, keys: $0, io: io, logger: logger) }
            if options.encryption == nil { try Journal.removeStaleList(directory: directory, kinds: kinds, io: io, logger: logger) }
            recovered = try Journal.recoverSegments(directory: directory, io: io, maxPayload: options.maxPayloadSize, kinds: kinds, keys: options.encryption, visit: visit)
            nextSequence = recovered.nextSequence
            if let keys = options.encryption, let plainCheck {
                // Listed as recovery left them, and before the first encrypted segment exists.
                try Journal.listPlainSegments(plainCheck, directory: directory, keys: keys, io: io)
                // What an earlier run wrote to its last segment is durable before anything follows it.
                if let last = recovered.lastSegment, recovered.lastRecord != nil {
                    io.close(try Journal.openActiveSegment(last, directory: directory, io: io).fd)
                }
                // A fresh salt for every opening: appends never continue a segment written before.
                let name = Journal.segmentName(nextSequence)
                segmentName = name
                // Measured before the segment is made: nothing that can fail comes between its
                // creation and `prepare`, which closes it when it fails.
                let existing = try Journal.segmentNames(directory, io: io).filter { $0 != name }.reduce(0) { $0 + (io.size(at: directory + "/" + $1) ?? 0) }
                let created = try Journal.createEncryptedSegment(name, directory: directory, keys: keys, io: io)
                segmentFD = created.fd
                segmentCipher = created.cipher
                segmentBytes = SegmentHeader.size
                recovered.infos[segmentName] = SegmentInfo(cipher: segmentCipher, protection: .currentKey)
                recovered.bytes = existing + SegmentHeader.size
            } else if let name = recovered.lastSegment {
                (segmentFD, segmentBytes) = try Journal.openActiveSegment(name, directory: directory, io: io)
                segmentName = name
                lastAcknowledged = recovered.lastRecord
            } else {
                segmentName = Journal.segmentName(nextSequence)
                segmentFD = try Journal.createSegment(directory: directory, firstSequence: nextSequence, io: io)
                segmentBytes = 0
            }
            syncedBytes = segmentBytes
            // Preallocated, so that appends do not change the file's size.
            let target = Journal.preallocationTarget(segmentLimit: segmentLimit, diskCap: options.diskCap, recordBytes: recovered.bytes, segmentBytes: segmentBytes)
            do {
                segmentAllocated = try Journal.prepare(fd: segmentFD, segment: segmentName, end: segmentBytes, target: target, io: io, logger: logger)
            } catch {
                io.close(segmentFD)
                throw StorageError(code: .ioFailed, message: "Cannot position the active segment \(segmentName) in \(directory) for writing; check the disk.", cause: error as? SystemCallError)
            }
        } catch {
            io.close(lockFD)
            throw error
        }
        recoveredRecords = Mutex(recovered.records)
        segmentInfo = Mutex(recovered.infos)
        recoveryReport = recovered.problems
        setAsideSegments = options.encryption == nil ? [] : Journal.setAsideSegmentNames(directory, io: io)
        state = Mutex(State(activeSegment: segmentName, diskBytes: recovered.bytes, reserved: max(0, segmentAllocated - segmentBytes), activeBytes: segmentBytes))
        startWriter()
    }

    deinit {
        let (closing, closed) = state.withLock { ($0.closing, $0.closed) }
        if !closing { releasedWithoutClose() }
        // Released while the writer had yet to wake for its last turn (``close(then:)``): that
        // turn is this one, and the thread ends at its wake.
        if !closed { closeOnRelease() }
    }

    /// Creates the `lock` file and takes its lock; throws `.locked` when another opener holds it.
    private static func lock(_ directory: String, io: FileIO) throws -> Int32 {
        let path = directory + "/lock"
        let fd: Int32
        do {
            fd = try io.open(path, O_RDWR | O_CREAT, mode: 0o600)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot create \(path); check permissions and free space.", cause: error as? SystemCallError)
        }
        do {
            try io.lock(fd)
        } catch {
            io.close(fd)
            throw StorageError(code: .locked, message: "The journal directory \(directory) is already open in another process or instance; stop it or use another directory.", cause: error as? SystemCallError)
        }
        return fd
    }

    /// Appends one record and returns its sequence number once it is acknowledged: after the
    /// covering fdatasync, or once written in relaxed mode or for a `.deferredMarker`.
    ///
    /// - Parameter kind: what the record is for (``JournalAppendKind``): whether it may go over
    ///   the disk cap, when it is acknowledged, whether it starts a segment. `.record` by default.
    public func append(type: UInt8, payload: [UInt8], kind: JournalAppendKind = .record) async throws -> UInt64 {
        try await appendLocated(type: type, payload: payload, kind: kind).sequence
    }

    /// Appends one record and returns where it lies once it is acknowledged (as `append`).
    public func appendLocated(type: UInt8, payload: [UInt8], kind: JournalAppendKind = .record) async throws -> JournalLocation {
        guard payload.count <= options.maxPayloadSize else {
            throw StorageError(code: .recordTooLarge, message: "A record of \(payload.count) bytes exceeds the maximum of \(options.maxPayloadSize) bytes; split it.")
        }
        return try await withCheckedThrowingContinuation { cont in
            // While the journal has failed, the append still goes to the writer: it is the next
            // attempt to write, and fails at once if the journal cannot write yet.
            let err: StorageError? = state.withLock { s in
                if s.closing { return StorageError(code: .closed, message: "The journal in \(directory) is closed; reopen it.") }
                s.pending.append(Pending(type: type, payload: payload, kind: kind, continuation: cont))
                return nil
            }
            if let err { cont.resume(throwing: err) } else { wakeup.signal() }
        }
    }

    /// The error appends fail with while the journal cannot write durably; nil when it can.
    public var failure: StorageError? { state.withLock { $0.failure?.error } }

    /// Why and since when the journal refuses appends; nil while it accepts them.
    public var currentFailure: JournalFailure? { state.withLock { $0.failure?.info } }

    /// Bytes of the records the segment files hold together (what `JournalOptions.diskCap`
    /// limits). The active segment takes `preallocatedBytes` more on disk.
    public var diskBytes: Int { state.withLock { $0.diskBytes } }

    /// The active segment's preallocated bytes past its records: zeros that appends overwrite.
    /// With a disk cap, `diskBytes + preallocatedBytes` stays within it (only reclaiming appends
    /// go over).
    public var preallocatedBytes: Int { state.withLock { $0.reserved } }
}

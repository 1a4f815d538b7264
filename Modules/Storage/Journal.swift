// Storage: a crash-safe append-only journal. Records are framed (magic, length, CRC32C, type,
// sequence number, payload) in segment files; one dedicated writer thread group-commits pending
// appends into one write and one fdatasync, and each caller resumes only after the fdatasync that
// covers its record returned (unless the journal is relaxed or the append asks for `deferSync`).
// Opening recovers torn tails and reports mid-segment corruption.
// The on-disk format is documented in doc/journal-format.md.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Synchronization

/// One record read back from the journal.
public struct JournalRecord: Sendable, Equatable {
    public var sequence: UInt64
    public var type: UInt8
    public var payload: [UInt8]
}

/// Where a record lies: its sequence number, the segment file and the byte offset of its frame.
/// `Journal.read(at:)` reads it back, so an owner can keep locations instead of payloads in memory.
public struct JournalLocation: Sendable, Hashable {
    public var sequence: UInt64
    public var segment: String
    public var offset: Int

    public init(sequence: UInt64, segment: String, offset: Int) {
        self.sequence = sequence
        self.segment = segment
        self.offset = offset
    }
}

/// A segment file of the journal.
public struct JournalSegment: Sendable, Hashable {
    public var name: String
    public var bytes: Int
    /// True for the segment appends go to; it is never removed.
    public var isActive: Bool
}

/// A problem met during recovery, for the daemon status to show.
public struct RecoveryProblem: Sendable, Equatable {
    public enum Kind: String, Sendable { case tornTail, corruptSegment }
    public var kind: Kind
    public var segment: String
    public var offset: Int
    /// Where the cut bytes or the corrupt segment copy were kept.
    public var keptAt: String
}

/// Low-level file operations the journal writer uses; tests inject failures here.
public struct JournalFileOperations: Sendable {
    public var write: @Sendable (Int32, UnsafeRawBufferPointer) -> Int
    public var fdatasync: @Sendable (Int32) -> Int32
    public init(
        write: @escaping @Sendable (Int32, UnsafeRawBufferPointer) -> Int = { fd, buf in Glibc.write(fd, buf.baseAddress, buf.count) },
        fdatasync: @escaping @Sendable (Int32) -> Int32 = { Glibc.fdatasync($0) }
    ) {
        self.write = write
        self.fdatasync = fdatasync
    }
}

/// When an append is acknowledged.
public enum JournalDurability: Sendable, Hashable {
    /// An append returns only after the `fdatasync` covering it returned (the default).
    case strict
    /// An append returns once its bytes are written to the kernel; the writer issues `fdatasync`
    /// at most `syncInterval` later. A crash of the process loses nothing, but a power loss or a
    /// kernel crash can lose what was acknowledged in the last `syncInterval`.
    case relaxed(syncInterval: Duration)
}

/// Journal settings.
public struct JournalOptions: Sendable {
    /// A segment is closed and a new one started once it reaches this size.
    public var segmentSize: Int = 64 << 20
    /// Largest payload; a frame claiming more is treated as corruption.
    public var maxPayloadSize: Int = 16 << 20
    /// When appends are acknowledged; `.strict` unless a caller opts out.
    public var durability: JournalDurability = .strict
    /// The most bytes the segment files may hold together; nil for no cap. An append that would
    /// go over it fails with `StorageError` `.journalFull` and writes nothing; appends succeed
    /// again once segments are removed. Appends made with `mayExceedCap` (the records that let
    /// space be reclaimed: markers that settle records, a compaction's carried copies) go through.
    /// With a cap, segments are started at a quarter of it when that is below `segmentSize`, so
    /// that settled segments can be removed (the active one never is).
    public var diskCap: Int?
    /// In strict mode, the longest a record appended with `deferSync` waits for its fdatasync
    /// (any other append's fdatasync covers it sooner). Relaxed mode uses its own interval.
    public var deferredSyncInterval: Duration = .milliseconds(200)
    public var fileOperations = JournalFileOperations()
    public init() {}
}

/// Frame layout constants.
enum Frame {
    static let magic: UInt32 = 0x3153_5653  // "SVS1" little-endian
    static let headerSize = 21  // magic 4, length 4, crc 4, type 1, sequence 8

    static func encode(type: UInt8, sequence: UInt64, payload: [UInt8], into out: inout [UInt8]) {
        func put32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        var body: [UInt8] = [type]
        withUnsafeBytes(of: sequence.littleEndian) { body.append(contentsOf: $0) }
        var crc = body.withUnsafeBytes { CRC32C.update(0, $0) }
        crc = payload.withUnsafeBytes { CRC32C.update(crc, $0) }
        put32(magic)
        put32(UInt32(payload.count))
        put32(crc)
        out.append(contentsOf: body)
        out.append(contentsOf: payload)
    }

    /// Parses one frame at `offset`; nil when it is incomplete or invalid. Never allocates more than the file holds.
    static func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int, maxPayload: Int) -> (JournalRecord, Int)? {
        guard offset + headerSize <= bytes.count else { return nil }
        func u32(_ o: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + o, as: UInt32.self)) }
        guard u32(0) == magic else { return nil }
        let length = Int(u32(4))
        guard length <= maxPayload, offset + headerSize + length <= bytes.count else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 12)..<(offset + headerSize + length)])
        guard CRC32C.update(0, body) == u32(8) else { return nil }
        let type = bytes[offset + 12]
        let seq = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 13, as: UInt64.self))
        let payload = Array(bytes[(offset + headerSize)..<(offset + headerSize + length)])
        return (JournalRecord(sequence: seq, type: type, payload: payload), headerSize + length)
    }
}

/// A crash-safe append-only journal in one directory. Safe to share between tasks.
public final class Journal: Sendable {
    /// Records recovered on open, in sequence order.
    public let recovered: [JournalRecord]
    /// Problems found and handled on open.
    public let recoveryReport: [RecoveryProblem]
    /// The journal directory.
    public let directory: String

    private struct Pending {
        var type: UInt8
        var payload: [UInt8]
        var mayExceedCap: Bool
        var startsSegment: Bool
        var alwaysDurable: Bool
        var deferSync: Bool
        var continuation: CheckedContinuation<JournalLocation, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        var failure: StorageError?
        var closing = false
        /// The segment appends go to; written by the writer thread under the lock.
        var activeSegment = ""
        /// Bytes in the segment files: the writer adds what it writes, removal subtracts.
        var diskBytes = 0
    }

    private let state: Mutex<State>
    private let wakeup = DispatchSemaphore(value: 0)
    private let writerDone = DispatchSemaphore(value: 0)
    private let options: JournalOptions
    /// `options.segmentSize`, or a quarter of the disk cap when that is smaller: with a cap, the
    /// active segment (which is never removed) must leave room for the removable ones.
    private let segmentLimit: Int
    private let lockFD: Int32
    private let logger: Logger
    // Writer-thread-only state, never touched by other threads after open.
    private nonisolated(unsafe) var segmentFD: Int32
    private nonisolated(unsafe) var segmentName: String
    private nonisolated(unsafe) var segmentBytes: Int
    private nonisolated(unsafe) var nextSequence: UInt64
    /// When the oldest written but not yet fdatasync'd bytes were written (relaxed mode, or
    /// `deferSync` records in strict mode); nil when everything written is durable.
    private nonisolated(unsafe) var unsyncedSince: ContinuousClock.Instant?
    /// Read-only descriptors of segments that `read(at:)` has read, by name. Reads hold the lock
    /// while they use a descriptor, so removing a segment never closes one under a reader.
    private let readers = Mutex<[String: Int32]>([:])
    /// Segments kept open for reading at most; beyond that, the others are closed.
    static let maxOpenReaders = 8

    /// Opens (creating if needed) the journal in `directory`, recovering what is there.
    /// Throws `StorageError` with code `.locked` when another opener holds the directory.
    ///
    /// With `visit`, each recovered record is handed to it with its location, in file order
    /// (segment by segment), and `recovered` stays empty: an owner with many records keeps only
    /// what it needs in memory. Without it, `recovered` holds every record in sequence order.
    public init(directory: String, options: JournalOptions = JournalOptions(), logger: Logger, visit: ((JournalRecord, JournalLocation) throws -> Void)? = nil) throws {
        self.directory = directory
        self.options = options
        self.segmentLimit = options.diskCap.map { min(options.segmentSize, max(4096, $0 / 4)) } ?? options.segmentSize
        self.logger = logger
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw StorageError(code: .ioFailed, message: "Cannot create journal directory \(directory); check the parent exists and is writable.", cause: SystemCallError(call: "mkdir", errno: errno))
        }
        chmod(directory, 0o700)
        let lfd = try Journal.createFile(directory + "/lock", flags: O_RDWR | O_CREAT)
        if flock(lfd, LOCK_EX | LOCK_NB) != 0 {
            let e = errno
            Glibc.close(lfd)
            throw StorageError(code: .locked, message: "The journal directory \(directory) is already open in another process or instance; stop it or use another directory.", cause: SystemCallError(call: "flock", errno: e))
        }
        lockFD = lfd
        let recoveredBytes: Int
        do {
            var problems: [RecoveryProblem] = []
            try Journal.finishRemoval(directory: directory)
            let segs = try Journal.segmentNames(directory)
            var records: [JournalRecord] = []
            var highest: UInt64 = 0
            var bytes = 0
            for name in segs {
                bytes += try Journal.recover(segment: name, directory: directory, maxPayload: options.maxPayloadSize, problems: &problems) { record, offset in
                    highest = max(highest, record.sequence)
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
            if let last = segs.last {
                let fd = open(directory + "/" + last, O_WRONLY | O_APPEND | O_CLOEXEC)
                guard fd >= 0 else { throw StorageError(code: .ioFailed, message: "Cannot open segment \(last) in \(directory).", cause: SystemCallError(call: "open", errno: errno)) }
                segmentFD = fd
                segmentName = last
                segmentBytes = Int(lseek(fd, 0, SEEK_END))
            } else {
                segmentName = Journal.segmentName(nextSequence)
                segmentFD = try Journal.createSegment(directory: directory, firstSequence: nextSequence)
                segmentBytes = 0
            }
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
            let err: StorageError? = state.withLock { s in
                if let f = s.failure { return f }
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
        Glibc.close(segmentFD)
        readers.withLock { readers in
            for fd in readers.values { Glibc.close(fd) }
            readers.removeAll()
        }
        // Unlock before closing: a child forked meanwhile (not yet exec'd) shares the open file
        // description, and closing our descriptor alone would leave the directory locked.
        flock(lockFD, LOCK_UN)
        Glibc.close(lockFD)
    }

    /// The failure that closed the journal, if any.
    public var failure: StorageError? { state.withLock { $0.failure } }

    /// Bytes the segment files hold together (what `JournalOptions.diskCap` limits).
    public var diskBytes: Int { state.withLock { $0.diskBytes } }

    private func writerLoop() {
        var buffer: [UInt8] = []
        while true {
            if let since = unsyncedSince {
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
            if !batch.isEmpty { commit(batch, buffer: &buffer) }
            if closing && state.withLock({ $0.pending.isEmpty }) { break }
        }
        if unsyncedSince != nil { syncWritten() }
        writerDone.signal()
    }

    /// How long written records may wait for their fdatasync: relaxed mode's interval, or in
    /// strict mode the one for `deferSync` records.
    private var lazySyncInterval: Duration {
        if case .relaxed(let interval) = options.durability { return interval }
        return options.deferredSyncInterval
    }

    /// Makes what was written so far durable (relaxed mode, deferred records); a failure closes
    /// the journal.
    private func syncWritten() {
        unsyncedSince = nil
        guard state.withLock({ $0.failure == nil }) else { return }
        if options.fileOperations.fdatasync(segmentFD) != 0 {
            failClosed(SystemCallError(call: "fdatasync", errno: errno), batch: [])
        }
    }

    private func commit(_ batch: [Pending], buffer: inout [UInt8]) {
        if let f = state.withLock({ $0.failure }) {
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
                try writeRun(batch[start..<end], newSegment: batch[start].startsSegment, buffer: &buffer)
            } catch {
                failClosed(error, batch: Array(batch[start...]))
                return
            }
            start = end
        }
    }

    /// Writes one run of records to the active segment (after starting a new one when it is full
    /// or `newSegment` asks for it), makes it durable as the mode says, and resumes the callers.
    private func writeRun(_ run: ArraySlice<Pending>, newSegment: Bool, buffer: inout [UInt8]) throws {
        if segmentBytes >= segmentLimit || (newSegment && segmentBytes > 0) {
            if unsyncedSince != nil {
                unsyncedSince = nil
                if options.fileOperations.fdatasync(segmentFD) != 0 { throw SystemCallError(call: "fdatasync", errno: errno) }
            }
            Glibc.close(segmentFD)
            segmentFD = -1
            segmentFD = try Journal.createSegment(directory: directory, firstSequence: nextSequence)
            segmentName = Journal.segmentName(nextSequence)
            segmentBytes = 0
            state.withLock { [segmentName] in $0.activeSegment = segmentName }
        }
        buffer.removeAll(keepingCapacity: true)
        var locations: [JournalLocation] = []
        locations.reserveCapacity(run.count)
        for p in run {
            locations.append(JournalLocation(sequence: nextSequence, segment: segmentName, offset: segmentBytes + buffer.count))
            Frame.encode(type: p.type, sequence: nextSequence, payload: p.payload, into: &buffer)
            nextSequence += 1
        }
        var written = 0
        try buffer.withUnsafeBytes { raw in
            while written < raw.count {
                let n = options.fileOperations.write(segmentFD, UnsafeRawBufferPointer(rebasing: raw[written...]))
                if n < 0 { if errno == EINTR { continue }; throw SystemCallError(call: "write", errno: errno) }
                written += n
            }
        }
        segmentBytes += buffer.count
        state.withLock { [count = buffer.count] in $0.diskBytes += count }
        switch options.durability {
        case .strict where run.allSatisfy({ $0.deferSync && !$0.alwaysDurable }):
            if unsyncedSince == nil { unsyncedSince = ContinuousClock.now }
        case .strict:
            unsyncedSince = nil
            if options.fileOperations.fdatasync(segmentFD) != 0 { throw SystemCallError(call: "fdatasync", errno: errno) }
        case .relaxed(let interval):
            if unsyncedSince == nil { unsyncedSince = ContinuousClock.now }
            if let since = unsyncedSince, ContinuousClock.now - since >= interval || run.contains(where: \.alwaysDurable) {
                unsyncedSince = nil
                if options.fileOperations.fdatasync(segmentFD) != 0 { throw SystemCallError(call: "fdatasync", errno: errno) }
            }
        }
        for (p, location) in zip(run, locations) { p.continuation.resume(returning: location) }
    }

    /// Stops accepting for good: `batch` and everything pending or later fail with `.failedClosed`.
    private func failClosed(_ error: any Error, batch: [Pending]) {
        let failure = StorageError(
            code: .failedClosed,
            message: "The journal in \(directory) failed to write durably and stopped accepting; nothing after the failure was acknowledged. Check the disk, then restart to recover.",
            cause: Journal.sendableCause(error))
        logger.error("journal failed closed", metadata: ["directory": "\(directory)", "cause": "\(error)"])
        let rest = state.withLock { s -> [Pending] in
            s.failure = failure
            defer { s.pending = [] }
            return s.pending
        }
        for p in batch + rest { p.continuation.resume(throwing: failure) }
    }

    // MARK: Files

    static func createFile(_ path: String, flags: Int32) throws -> Int32 {
        let fd = open(path, flags | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError(code: .ioFailed, message: "Cannot create \(path); check permissions and free space.", cause: SystemCallError(call: "open", errno: errno)) }
        fchmod(fd, 0o600)
        return fd
    }

    static func fsyncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError(code: .ioFailed, message: "Cannot open directory \(directory) to fsync it.", cause: SystemCallError(call: "open", errno: errno)) }
        defer { Glibc.close(fd) }
        if fsync(fd) != 0 { throw StorageError(code: .ioFailed, message: "fsync of directory \(directory) failed; check the disk.", cause: SystemCallError(call: "fsync", errno: errno)) }
    }

    static func segmentName(_ firstSequence: UInt64) -> String {
        let hex = String(firstSequence, radix: 16)
        return "segment-" + String(repeating: "0", count: 16 - hex.count) + hex + ".log"
    }

    static func createSegment(directory: String, firstSequence: UInt64) throws -> Int32 {
        let fd = try createFile(directory + "/" + segmentName(firstSequence), flags: O_WRONLY | O_CREAT | O_APPEND)
        try fsyncDirectory(directory)
        return fd
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

    // MARK: Reading back and removing settled segments

    /// Reads the record at `location` back from its segment, checking its CRC.
    /// Throws `StorageError` `.notFound` when the segment is gone or the frame there is not that record.
    public func read(at location: JournalLocation) throws -> JournalRecord {
        let path = directory + "/" + location.segment
        return try readers.withLock { readers in
            // After close, nothing may be opened again: close() has released the descriptors.
            if state.withLock({ $0.closing }) {
                throw StorageError(code: .closed, message: "The journal in \(directory) is closed; reopen it to read record \(location.sequence).")
            }
            let fd: Int32
            if let open = readers[location.segment] {
                fd = open
            } else {
                fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    throw StorageError(code: .notFound, message: "Journal record \(location.sequence) cannot be read: segment \(path) is missing.", cause: SystemCallError(call: "open", errno: errno))
                }
                if readers.count >= Journal.maxOpenReaders {
                    for other in readers.values { Glibc.close(other) }
                    readers.removeAll(keepingCapacity: true)
                }
                readers[location.segment] = fd
            }
            return try Journal.readFrame(fd: fd, path: path, at: location, maxPayload: options.maxPayloadSize)
        }
    }

    /// Reads and checks the frame at `location` from `fd`: one `pread` for a record of up to
    /// 4 KiB, a second for the rest of a larger one.
    static func readFrame(fd: Int32, path: String, at location: JournalLocation, maxPayload: Int) throws -> JournalRecord {
        func readFully(into bytes: inout [UInt8], from start: Int, count: Int, at offset: Int) -> Int {
            var done = 0
            while done < count {
                let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + start + done, count - done, off_t(offset + done)) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
            return done
        }
        let bad = StorageError(code: .notFound, message: "Journal record \(location.sequence) is not at offset \(location.offset) of \(path); the segment changed underneath the journal.")
        var frame = [UInt8](repeating: 0, count: 4096)
        let got = readFully(into: &frame, from: 0, count: frame.count, at: location.offset)
        guard got >= Frame.headerSize else { throw bad }
        let length = frame.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self))) }
        guard length <= maxPayload else { throw bad }
        let size = Frame.headerSize + length
        if size > got {
            if size > frame.count { frame += [UInt8](repeating: 0, count: size - frame.count) }
            guard readFully(into: &frame, from: got, count: size - got, at: location.offset + got) == size - got else { throw bad }
        }
        guard let (record, _) = frame.withUnsafeBytes({ Frame.decode(UnsafeRawBufferPointer(rebasing: $0[..<size]), at: 0, maxPayload: maxPayload) }),
              record.sequence == location.sequence else { throw bad }
        return record
    }

    /// The segment files, oldest first; the last one is the active segment.
    public func segments() throws -> [JournalSegment] {
        let active = state.withLock { $0.activeSegment }
        return try Journal.segmentNames(directory).map { name in
            JournalSegment(name: name, bytes: Journal.fileSize(directory + "/" + name), isActive: name == active)
        }
    }

    /// Removes sealed segments whose records are all settled. The names are first written to a
    /// removal checkpoint (temporary file, fsync, rename, directory fsync), then each file is
    /// unlinked and the directory fsync'd; a restart in between finishes the removal on open
    /// without reading those segments. The active segment is never removed.
    public func removeSegments(_ names: [String]) throws {
        let active = state.withLock { $0.activeSegment }
        let doomed = names.filter { $0 != active && $0.hasPrefix("segment-") && !$0.contains("/") }
        guard !doomed.isEmpty else { return }
        let checkpoint = directory + "/" + Journal.removalCheckpoint
        let temporary = checkpoint + ".tmp"
        let fd = try Journal.createFile(temporary, flags: O_WRONLY | O_CREAT | O_TRUNC)
        let text = Array(doomed.joined(separator: "\n").utf8)
        let written = text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        Glibc.close(fd)
        guard written == text.count, synced == 0, rename(temporary, checkpoint) == 0 else {
            throw StorageError(code: .ioFailed, message: "Cannot write the removal checkpoint in \(directory); check free space.", cause: SystemCallError(call: "write", errno: errno))
        }
        try Journal.fsyncDirectory(directory)
        let freed = doomed.reduce(0) { $0 + Journal.fileSize(directory + "/" + $1) }
        // Descriptors are closed after the unlink: a read in between uses the one it has, and
        // none can be opened again on a removed file.
        defer {
            readers.withLock { readers in
                for name in doomed {
                    if let fd = readers.removeValue(forKey: name) { Glibc.close(fd) }
                }
            }
        }
        try Journal.finishRemoval(directory: directory)
        state.withLock { $0.diskBytes = max(0, $0.diskBytes - freed) }
    }

    static let removalCheckpoint = "checkpoint"

    /// Completes a removal recorded in the checkpoint: unlinks the segments it names, fsyncs the
    /// directory, then deletes the checkpoint.
    static func finishRemoval(directory: String) throws {
        let checkpoint = directory + "/" + removalCheckpoint
        guard let data = FileManager.default.contents(atPath: checkpoint) else { return }
        for name in String(decoding: data, as: UTF8.self).split(separator: "\n") where name.hasPrefix("segment-") && !name.contains("/") {
            if unlink(directory + "/" + name) != 0 && errno != ENOENT {
                throw StorageError(code: .ioFailed, message: "Cannot remove settled segment \(name) in \(directory); check permissions.", cause: SystemCallError(call: "unlink", errno: errno))
            }
        }
        try fsyncDirectory(directory)
        unlink(checkpoint)
        try fsyncDirectory(directory)
    }
}

// The submission queue: finished stages waiting to be delivered, kept in their own journal.
//
// Every change is a journal record (enqueued, delivered, dead, requeued), durable before the call
// returns. In memory the queue keeps one small fixed-size slot per pending or dead submission:
// its order, key, time, where its record lies and an index into a table of (stage, language,
// definition hash); bodies stay on disk and are read back when they are sent. Compaction carries
// the few live records of old segments forward and removes those segments.
//
//   SubmissionQueue.swift             the actor: changes and reading (this file)
//   SubmissionQueue+Compaction.swift  carrying live records forward, removing old segments
//   SubmissionQueue+Admin.swift       the operator's changes: dropping, importing, purging
//   Submission.swift, SubmissionID.swift  the values callers see
//   SubmissionQueue+Index.swift       the queue in memory, shared by replay and the actor
//   SubmissionQueue+KeyPrefixes.swift the table of key prefixes that answers "is it queued?"
//   SubmissionQueue+Replay.swift      rebuilding the index from the journal on open
//   SubmissionQueue+Codec.swift       the binary encoding of the records
//   QueueExecutor.swift               the thread the actor runs on

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Logging
import SystemMemory

/// The durable submission queue. Safe to share between tasks.
public actor SubmissionQueue {
    enum RecordType: UInt8 { case enqueued = 1, delivered = 2, dead = 3, requeued = 4, enqueuedWithState = 5, dropped = 6 }

    public nonisolated let journal: Journal
    /// The queue in memory (SubmissionQueue+Index.swift).
    var index: Index
    /// Ordinals whose requeue is being written (a second requeue of one of them finds nothing).
    var requeueing: Set<UInt64> = []
    /// Keys whose import is being written (a second import of one of them finds it known).
    var importing: Set<UUID> = []
    /// Keys whose enqueue is being written, with the enqueues of the same key waiting for it:
    /// they find it queued once it is, instead of writing it a second time meanwhile.
    var enqueuing: [UUID: [CheckedContinuation<Void, Never>]] = [:]
    private var deliveredSinceOpen = 0
    /// Since when a delivered or dropped submission's body has been waiting in the segment files
    /// for a purge to take it off the disk; nil when none is known to wait. Set by the first
    /// delivery or drop after a purge (or on open, when the files hold such bodies); cleared by
    /// `purge()`.
    public internal(set) var erasableSince: Date?
    /// The same moment as ``erasableSince``, on `options.uptime`.
    var erasableWaitStart: Duration?
    /// How long a delivered or dropped body has waited for a purge, measured on the monotonic
    /// `options.uptime` (a body found on open has waited from the open); nil when none waits.
    public var erasableFor: Duration? { erasableWaitStart.map { options.uptime() - $0 } }
    let options: SubmissionQueueOptions
    let logger: Logger
    /// Changes hold it shared; compaction holds it alone.
    let gate = ExclusiveGate()
    /// The thread the actor runs on (QueueExecutor.swift).
    private let executor = QueueExecutor(name: "surveyd-queue")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Opens (creating if needed) the queue in `directory` and rebuilds it from its journal.
    public init(directory: String, options: SubmissionQueueOptions = SubmissionQueueOptions(), logger: Logger) throws {
        self.options = options
        self.logger = logger
        var replay = Replay(rememberedDeliveries: options.rememberedDeliveries)
        journal = try Journal(directory: directory, options: options.journal, logger: logger) { record, location in
            try replay.visit(record, location)
        }
        index = replay.finish()
        if replay.erasableBodies > 0 {
            erasableSince = options.now()
            erasableWaitStart = options.uptime()
        }
        // Replay allocated and freed one record at a time: give the freed heap back to the system.
        // Its result (whether memory was released) changes nothing here.
        _ = system_memory_trim()
    }

    /// Problems the journal found and handled on open, as lines for the operator.
    public nonisolated var problems: [String] {
        journal.recoveryReport.map { "\($0.kind.rawValue) in \(journal.directory)/\($0.segment) at byte \($0.offset); the bytes are kept at \($0.keptAt)" }
    }

    /// Stops accepting changes, closes the journal and ends the queue's thread (waiting for it at
    /// most `threadLimit`). Waits without holding a thread.
    public nonisolated func close(threadLimit: Duration = .seconds(10)) async {
        await journal.close()
        await executor.finish(waitingAtMost: threadLimit)
    }

    /// Starts closing, as ``close(threadLimit:)`` does, without waiting: `closed` is called once
    /// the journal is closed; the queue's thread ends once the calls already made have run.
    public nonisolated func close(then closed: @escaping @Sendable () -> Void) {
        executor.finishSoon()
        journal.close(then: closed)
    }

    /// The threads of this queue that still run: its journal's writer and the actor's own thread
    /// (none once ``close(threadLimit:)`` has returned, unless a call came in after it).
    public nonisolated var threadsRunning: [String] {
        (journal.writerThreadRunning ? ["\(journal.directory) journal writer"] : [])
            + (executor.threadRunning ? ["\(journal.directory) queue thread"] : [])
    }

    // MARK: Changes

    /// Queues a submission durably. A key that is already pending, dead or recently delivered is
    /// not queued again; the result says which it was.
    @discardableResult
    public func enqueue(_ metadata: SubmissionMetadata, body: [UInt8]) async throws -> EnqueueResult {
        await gate.enterShared()
        defer { gate.leaveShared() }
        while enqueuing[metadata.key] != nil {
            await withCheckedContinuation { enqueuing[metadata.key, default: []].append($0) }
        }
        if let existing = index.find(key: metadata.key) { return .alreadyQueued(index.submission(existing)) }
        if index.delivered[metadata.key] != nil { return .alreadyDelivered }
        enqueuing[metadata.key] = []
        defer { for waiter in enqueuing.removeValue(forKey: metadata.key) ?? [] { waiter.resume() } }
        let ordinal = index.nextOrdinal
        index.nextOrdinal += 1
        let meta = index.intern(Meta(stage: metadata.stage, language: metadata.language, definitionHash: metadata.definitionHash))
        var slot = Slot(ordinal: ordinal, key: metadata.key, queuedAt: metadata.queuedAt.timeIntervalSince1970, sequence: 0, offset: 0, segment: 0, meta: meta, state: .pending)
        let record = Codec.enqueued(slot, index.metas[Int(meta)], session: metadata.session, state: Codec.State(consent: metadata.consent), body: body)
        let location = try await journal.appendLocated(type: record.type.rawValue, payload: record.payload)
        index.place(&slot, at: location)
        if let consent = metadata.consent { index.consents[ordinal] = consent }
        // Concurrent enqueues may resume out of order: keep the slots sorted by ordinal.
        let position = index.insertionPoint(for: ordinal)
        index.slots.insert(slot, at: position)
        index.pendingCount += 1
        index.keyPrefixes.insert(Index.prefix(slot.key))
        return .queued(index.submission(position))
    }

    /// Records that a submission was delivered, with the server's response.
    ///
    /// The marker is acknowledged once written; its fdatasync follows within the journal's
    /// `deferredSyncInterval` (sooner with any durable append). A power cut in that window
    /// leaves the submission pending, and it is sent again with the same idempotency key, which
    /// the server answers without counting it twice. A crash of the process loses nothing.
    public func markDelivered(_ id: SubmissionID, response: String?) async throws {
        let ordinal = id.ordinal
        await gate.enterShared()
        defer { gate.leaveShared() }
        guard let before = index.position(of: ordinal) else { throw unknown(ordinal) }
        let key = index.slots[before].key
        _ = try await journal.append(type: RecordType.delivered.rawValue, payload: Codec.marker(ordinal, key, text: response), kind: .deferredMarker)
        // Other changes ran during the await and may have moved the slots: look it up again.
        guard let position = index.position(of: ordinal) else { return }
        if index.slots[position].state == .pending { index.pendingCount -= 1 }
        index.slots[position].state = .removed
        index.removedCount += 1
        deliveredSinceOpen += 1
        noteErasable()
        index.noteDelivered(ordinal: ordinal, key: key, response: response)
        index.tidy()
    }

    /// Moves a submission to the dead letters, with the reason and what is known of the outcome.
    public func markDead(_ id: SubmissionID, reason: String, outcome: DeadOutcome = .unknown) async throws {
        let ordinal = id.ordinal
        await gate.enterShared()
        defer { gate.leaveShared() }
        guard let before = index.position(of: ordinal) else { throw unknown(ordinal) }
        _ = try await journal.append(type: RecordType.dead.rawValue, payload: Codec.deadMarker(ordinal, index.slots[before].key, reason: reason, outcome: outcome), kind: .marker)
        guard let position = index.position(of: ordinal) else { return }
        if index.slots[position].state == .pending { index.pendingCount -= 1 }
        index.slots[position].state = .dead
        index.deadLetters[ordinal] = DeadNote(reason: reason, outcome: outcome)
    }

    /// Puts a dead letter back in the queue, in its place in the order, sent with the key `key`
    /// chooses (a new key is journaled with the requeue, so a restart keeps it); nil when there
    /// is no such dead letter.
    public func requeue(_ id: SubmissionID, key: RequeueKey = .byOutcome) async throws -> QueuedSubmission? {
        let ordinal = id.ordinal
        await gate.enterShared()
        defer { gate.leaveShared() }
        guard let before = index.position(of: ordinal), index.slots[before].state == .dead, !requeueing.contains(ordinal) else { return nil }
        let newKey: UUID?
        switch key {
        case .keep: newKey = nil
        case .new: newKey = UUID()
        case .byOutcome: newKey = index.deadLetters[ordinal]?.outcome == .rejected ? UUID() : nil
        }
        requeueing.insert(ordinal)
        defer { requeueing.remove(ordinal) }
        _ = try await journal.append(type: RecordType.requeued.rawValue, payload: Codec.requeuedMarker(ordinal, index.slots[before].key, newKey: newKey), kind: .marker)
        guard let position = index.position(of: ordinal), index.slots[position].state == .dead else { return nil }
        index.slots[position].state = .pending
        index.pendingCount += 1
        index.noteRequeued(ordinal: ordinal, newKey: newKey)
        return index.submission(position)
    }

    // MARK: Reading

    /// Pending submissions, oldest first, leaving out the ids in `excluding`.
    public func pending(limit: Int, excluding: Set<SubmissionID> = []) -> [QueuedSubmission] {
        var result: [QueuedSubmission] = []
        var position = index.head
        while position < index.slots.count && result.count < limit {
            if index.slots[position].state == .pending && !excluding.contains(SubmissionID(index.slots[position].ordinal)) { result.append(index.submission(position)) }
            position += 1
        }
        return result
    }

    /// The dead letters, oldest first.
    public func dead() -> [DeadSubmission] {
        index.deadLetters.keys.sorted().compactMap { ordinal in
            let note = index.deadLetters[ordinal] ?? DeadNote(reason: "", outcome: .unknown)
            return index.position(of: ordinal).map { DeadSubmission(submission: index.submission($0), reason: note.reason, outcome: note.outcome) }
        }
    }

    /// The dead letter with this id; nil when it is not a dead letter.
    public func deadLetter(_ id: SubmissionID) -> DeadSubmission? {
        guard let note = index.deadLetters[id.ordinal], let position = index.position(of: id.ordinal) else { return nil }
        return DeadSubmission(submission: index.submission(position), reason: note.reason, outcome: note.outcome)
    }

    /// The body of a queued submission, read back from disk: a slice of the record it was read
    /// into (no copy; the caller makes the buffer it sends from).
    public func body(of id: SubmissionID) throws -> ArraySlice<UInt8> {
        guard let position = index.position(of: id.ordinal) else { throw unknown(id.ordinal) }
        let (record, decoded) = try storedRecord(index.slots[position])
        return record.payload[decoded.bodyStart...]
    }

    /// The bodies of several submissions, in the order of `ids`, each read as ``body(of:)`` reads
    /// one (a failure is that submission's alone): one call to the queue for a sender's next few.
    public func bodies(of ids: [SubmissionID]) -> [Result<ArraySlice<UInt8>, any Error>] {
        ids.map { id in Result { try body(of: id) } }
    }

    /// Everything stored about a pending or dead submission, `session` included, read back from disk.
    public func details(of id: SubmissionID) throws -> SubmissionMetadata {
        let ordinal = id.ordinal
        guard let position = index.position(of: ordinal) else { throw unknown(ordinal) }
        var metadata = index.submission(position).metadata
        metadata.session = try storedRecord(index.slots[position]).1.session
        return metadata
    }

    func storedRecord(_ slot: Slot) throws -> (JournalRecord, Codec.Enqueued) {
        let record = try journal.read(at: index.location(of: slot))
        guard let decoded = Codec.decodeEnqueued(record.payload, type: record.type) else {
            throw StorageError(code: .undecodableRecord, message: "Queue record \(record.sequence) in \(journal.directory) does not decode; the queue file is damaged.")
        }
        return (record, decoded)
    }

    /// Where the submission with this key stands; nil when it is not known (never queued, or
    /// delivered long ago).
    public func state(of key: UUID) -> SubmissionState? {
        if let position = index.find(key: key) {
            let slot = index.slots[position]
            return slot.state == .dead ? .dead(reason: index.deadLetters[slot.ordinal]?.reason ?? "") : .pending
        }
        if let response = index.delivered[key] { return .delivered(response: response) }
        return nil
    }

    /// The definition hashes that pending and dead submissions refer to (to keep them cached).
    public func definitionHashes() -> Set<String> {
        var used = Set<UInt32>()
        for position in index.head..<index.slots.count where index.slots[position].state != .removed { used.insert(index.slots[position].meta) }
        return Set(used.map { index.metas[Int($0)].definitionHash })
    }

    public func counts() -> SubmissionQueueCounts {
        var oldest: Date?
        var position = index.head
        while position < index.slots.count {
            if index.slots[position].state == .pending { oldest = Date(timeIntervalSince1970: index.slots[position].queuedAt); break }
            position += 1
        }
        return SubmissionQueueCounts(pending: index.pendingCount, dead: index.deadLetters.count, delivered: deliveredSinceOpen, oldestPendingAt: oldest)
    }

    /// A delivered or dropped body waits in the files from now, unless one waited already.
    func noteErasable() {
        guard erasableSince == nil else { return }
        erasableSince = options.now()
        erasableWaitStart = options.uptime()
    }

    func unknown(_ ordinal: UInt64) -> StorageError {
        StorageError(code: .notFound, message: "Submission \(ordinal) is not in the queue in \(journal.directory); it was delivered already or never queued.")
    }
}

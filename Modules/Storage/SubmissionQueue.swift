// The submission queue: finished stages waiting to be delivered, kept in their own journal.
//
// Every change is a journal record (enqueued, delivered, dead, requeued), durable before the call
// returns. In memory the queue keeps one small fixed-size slot per pending or dead submission:
// its order, key, time, where its record lies and an index into a table of (stage, language,
// definition hash); bodies stay on disk and are read back when they are sent. Compaction carries
// the few live records of old segments forward and removes those segments.

import Foundation
import Logging
import NIOCore
import SystemMemory

/// The durable submission queue. Safe to share between tasks.
public actor SubmissionQueue {
    enum RecordType: UInt8 { case enqueued = 1, delivered = 2, dead = 3, requeued = 4, enqueuedWithState = 5 }
    enum SlotState: UInt8 { case pending = 0, dead = 1, removed = 2 }

    /// One pending or dead submission in memory (56 bytes).
    struct Slot {
        var ordinal: UInt64
        var key: UUID
        var queuedAt: Double
        var sequence: UInt64
        var offset: UInt32
        var segment: UInt32
        var meta: UInt32
        var state: SlotState
    }

    /// A dead letter's reason and outcome.
    struct DeadNote: Equatable {
        var reason: String
        var outcome: DeadOutcome
    }

    /// What many submissions share, interned: one table entry per (stage, language, hash).
    struct Meta: Hashable {
        var stage: String
        var language: String
        var definitionHash: String
    }

    public nonisolated let journal: Journal
    var slots: [Slot] = []
    var head = 0
    var removedCount = 0
    var pendingCount = 0
    /// The dead letters' reasons and outcomes, by ordinal.
    var deadLetters: [UInt64: DeadNote] = [:]
    /// The idempotency keys requeues gave, by ordinal (few: rejected letters sent again).
    var requeueKeys: [UInt64: UUID] = [:]
    /// Ordinals whose requeue is being written (a second requeue of one of them finds nothing).
    var requeueing: Set<UInt64> = []
    var keyPrefixes = Set<UInt32>()
    var delivered: [UUID: String?] = [:]
    var deliveredOrder: [UUID] = []
    var deliveredSinceOpen = 0
    var metas: [Meta] = []
    var metaIndex: [Meta: UInt32] = [:]
    var segmentNames: [String] = []
    var segmentIndex: [String: UInt32] = [:]
    var segmentRecords: [Int] = []
    var nextOrdinal: UInt64 = 1
    let options: SubmissionQueueOptions
    let logger: Logger
    // Mutations share the queue; compaction takes it alone.
    var mutations = 0
    var compacting = false
    var waitingMutations: [CheckedContinuation<Void, Never>] = []
    var waitingCompaction: CheckedContinuation<Void, Never>?

    /// Opens (creating if needed) the queue in `directory` and rebuilds it from its journal.
    public init(directory: String, options: SubmissionQueueOptions = SubmissionQueueOptions(), logger: Logger) throws {
        self.options = options
        self.logger = logger
        var replay = Replay()
        replay.remember = options.rememberedDeliveries
        journal = try Journal(directory: directory, options: options.journal, logger: logger) { record, location in
            try replay.visit(record, location)
        }
        replay.finish()
        slots = replay.slots
        replay.slots = []
        pendingCount = slots.lazy.filter { $0.state == .pending }.count
        deadLetters = replay.deadLetters
        requeueKeys = replay.requeueKeys
        keyPrefixes = Set(minimumCapacity: slots.count)
        for slot in slots { keyPrefixes.insert(Self.prefix(slot.key)) }
        delivered = replay.delivered
        deliveredOrder = replay.deliveredOrder
        metas = replay.metas
        metaIndex = replay.metaIndex
        segmentNames = replay.segmentNames
        segmentIndex = replay.segmentIndex
        segmentRecords = replay.segmentRecords
        nextOrdinal = replay.maxOrdinal + 1
        // Replay allocated and freed one record at a time: give the freed heap back to the system.
        _ = system_memory_trim()
    }

    /// Problems the journal found and handled on open, as lines for the operator.
    public nonisolated var problems: [String] {
        journal.recoveryReport.map { "\($0.kind.rawValue) in \(journal.directory)/\($0.segment) at byte \($0.offset); the bytes are kept at \($0.keptAt)" }
    }

    /// Stops accepting changes and closes the journal.
    public nonisolated func close() { journal.close() }

    // MARK: Changes

    /// Queues a submission durably. A key that is already pending, dead or recently delivered is
    /// not queued again; the existing entry is returned.
    @discardableResult
    public func enqueue(_ metadata: SubmissionMetadata, body: [UInt8]) async throws -> QueuedSubmission {
        await beginMutation()
        defer { endMutation() }
        if let existing = find(key: metadata.key) { return submission(existing) }
        if delivered[metadata.key] != nil {
            return QueuedSubmission(id: SubmissionID(0), metadata: metadata)
        }
        let ordinal = nextOrdinal
        nextOrdinal += 1
        let meta = intern(Meta(stage: metadata.stage, language: metadata.language, definitionHash: metadata.definitionHash))
        var slot = Slot(ordinal: ordinal, key: metadata.key, queuedAt: metadata.queuedAt.timeIntervalSince1970, sequence: 0, offset: 0, segment: 0, meta: meta, state: .pending)
        let record = Codec.enqueued(slot, metas[Int(meta)], session: metadata.session, body: body)
        let location = try await journal.appendLocated(type: record.type.rawValue, payload: record.payload)
        place(&slot, at: location)
        // Concurrent enqueues may resume out of order: keep the slots sorted by ordinal.
        let index = insertionPoint(for: ordinal)
        slots.insert(slot, at: index)
        pendingCount += 1
        keyPrefixes.insert(Self.prefix(slot.key))
        return submission(index)
    }

    /// Records that a submission was delivered, with the server's response.
    ///
    /// The marker is acknowledged once written; its fdatasync follows within the journal's
    /// `deferredSyncInterval` (sooner with any durable append). A power cut in that window
    /// leaves the submission pending, and it is sent again with the same idempotency key, which
    /// the server answers without counting it twice. A crash of the process loses nothing.
    public func markDelivered(_ id: SubmissionID, response: String?) async throws {
        let ordinal = id.ordinal
        await beginMutation()
        defer { endMutation() }
        guard let before = position(of: ordinal) else { throw unknown(ordinal) }
        let slot = slots[before]
        _ = try await journal.append(type: RecordType.delivered.rawValue, payload: Codec.marker(ordinal, slot.key, text: response), mayExceedCap: true, deferSync: true)
        // Other changes ran during the await and may have moved the slots: look it up again.
        guard let index = position(of: ordinal) else { return }
        if slots[index].state == .pending { pendingCount -= 1 }
        deadLetters[ordinal] = nil
        requeueKeys[ordinal] = nil
        slots[index].state = .removed
        removedCount += 1
        deliveredSinceOpen += 1
        remember(slot.key, response: response)
        tidy()
    }

    /// Moves a submission to the dead letters, with the reason and what is known of the outcome.
    public func markDead(_ id: SubmissionID, reason: String, outcome: DeadOutcome = .unknown) async throws {
        let ordinal = id.ordinal
        await beginMutation()
        defer { endMutation() }
        guard let before = position(of: ordinal) else { throw unknown(ordinal) }
        _ = try await journal.append(type: RecordType.dead.rawValue, payload: Codec.deadMarker(ordinal, slots[before].key, reason: reason, outcome: outcome), mayExceedCap: true)
        guard let index = position(of: ordinal) else { return }
        if slots[index].state == .pending { pendingCount -= 1 }
        slots[index].state = .dead
        deadLetters[ordinal] = DeadNote(reason: reason, outcome: outcome)
    }

    /// Puts a dead letter back in the queue, in its place in the order, sent with the key `key`
    /// chooses (a new key is journaled with the requeue, so a restart keeps it); nil when there
    /// is no such dead letter.
    public func requeue(_ id: SubmissionID, key: RequeueKey = .byOutcome) async throws -> QueuedSubmission? {
        let ordinal = id.ordinal
        await beginMutation()
        defer { endMutation() }
        guard let before = position(of: ordinal), slots[before].state == .dead, !requeueing.contains(ordinal) else { return nil }
        let newKey: UUID?
        switch key {
        case .keep: newKey = nil
        case .new: newKey = UUID()
        case .byOutcome: newKey = deadLetters[ordinal]?.outcome == .rejected ? UUID() : nil
        }
        requeueing.insert(ordinal)
        defer { requeueing.remove(ordinal) }
        _ = try await journal.append(type: RecordType.requeued.rawValue, payload: Codec.requeuedMarker(ordinal, slots[before].key, newKey: newKey), mayExceedCap: true)
        guard let index = position(of: ordinal), slots[index].state == .dead else { return nil }
        slots[index].state = .pending
        pendingCount += 1
        deadLetters[ordinal] = nil
        if let newKey { requeueKeys[ordinal] = newKey }
        return submission(index)
    }

    // MARK: Reading

    /// Pending submissions, oldest first, leaving out the ids in `excluding`.
    public func pending(limit: Int, excluding: Set<SubmissionID> = []) -> [QueuedSubmission] {
        var result: [QueuedSubmission] = []
        var index = head
        while index < slots.count && result.count < limit {
            if slots[index].state == .pending && !excluding.contains(SubmissionID(slots[index].ordinal)) { result.append(submission(index)) }
            index += 1
        }
        return result
    }

    /// The dead letters, oldest first.
    public func dead() -> [DeadSubmission] {
        deadLetters.keys.sorted().compactMap { ordinal in
            let note = deadLetters[ordinal] ?? DeadNote(reason: "", outcome: .unknown)
            return position(of: ordinal).map { DeadSubmission(submission: submission($0), reason: note.reason, outcome: note.outcome) }
        }
    }

    /// The dead letter with this id; nil when it is not a dead letter.
    public func deadLetter(_ id: SubmissionID) -> DeadSubmission? {
        guard let note = deadLetters[id.ordinal], let index = position(of: id.ordinal) else { return nil }
        return DeadSubmission(submission: submission(index), reason: note.reason, outcome: note.outcome)
    }

    /// The body of a queued submission, read back from disk into the buffer it is sent from.
    public func body(of id: SubmissionID) throws -> ByteBuffer {
        guard let index = position(of: id.ordinal) else { throw unknown(id.ordinal) }
        let (record, decoded) = try storedRecord(slots[index])
        return ByteBuffer(bytes: record.payload[decoded.bodyStart...])
    }

    /// Everything stored about a pending or dead submission, `session` included, read back from disk.
    public func details(of id: SubmissionID) throws -> SubmissionMetadata {
        let ordinal = id.ordinal
        guard let index = position(of: ordinal) else { throw unknown(ordinal) }
        var metadata = submission(index).metadata
        metadata.session = try storedRecord(slots[index]).1.session
        return metadata
    }

    func storedRecord(_ slot: Slot) throws -> (JournalRecord, Codec.Enqueued) {
        let record = try journal.read(at: JournalLocation(sequence: slot.sequence, segment: segmentNames[Int(slot.segment)], offset: Int(slot.offset)))
        guard let decoded = Codec.decodeEnqueued(record.payload, type: record.type) else {
            throw StorageError(code: .undecodableRecord, message: "Queue record \(record.sequence) in \(journal.directory) does not decode; the queue file is damaged.")
        }
        return (record, decoded)
    }

    /// Where the submission with this key stands; nil when it is not known (never queued, or
    /// delivered long ago).
    public func state(of key: UUID) -> SubmissionState? {
        if let index = find(key: key) {
            return slots[index].state == .dead ? .dead(reason: deadLetters[slots[index].ordinal]?.reason ?? "") : .pending
        }
        if let response = delivered[key] { return .delivered(response: response) }
        return nil
    }

    /// The definition hashes that pending and dead submissions refer to (to keep them cached).
    public func definitionHashes() -> Set<String> {
        var used = Set<UInt32>()
        for index in head..<slots.count where slots[index].state != .removed { used.insert(slots[index].meta) }
        return Set(used.map { metas[Int($0)].definitionHash })
    }

    public func counts() -> SubmissionQueueCounts {
        var oldest: Date?
        var index = head
        while index < slots.count {
            if slots[index].state == .pending { oldest = Date(timeIntervalSince1970: slots[index].queuedAt); break }
            index += 1
        }
        return SubmissionQueueCounts(pending: pendingCount, dead: deadLetters.count, delivered: deliveredSinceOpen, oldestPendingAt: oldest)
    }

    // MARK: Internals

    private func submission(_ index: Int) -> QueuedSubmission {
        let slot = slots[index]
        let meta = metas[Int(slot.meta)]
        return QueuedSubmission(id: SubmissionID(slot.ordinal), metadata: SubmissionMetadata(
            key: slot.key, stage: meta.stage, language: meta.language, definitionHash: meta.definitionHash,
            queuedAt: Date(timeIntervalSince1970: slot.queuedAt), session: nil),
            requeueKey: requeueKeys.isEmpty ? nil : requeueKeys[slot.ordinal])
    }

    private func position(of ordinal: UInt64) -> Int? {
        let low = Self.lowerBound(of: ordinal, in: slots, from: head)
        guard low < slots.count, slots[low].ordinal == ordinal, slots[low].state != .removed else { return nil }
        return low
    }

    /// The first index from `start` whose slot's ordinal is not below `ordinal` (slots sorted by ordinal).
    static func lowerBound(of ordinal: UInt64, in slots: [Slot], from start: Int) -> Int {
        var low = start
        var high = slots.count
        while low < high {
            let mid = (low + high) / 2
            if slots[mid].ordinal < ordinal { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Where a slot with `ordinal` goes to keep the slots sorted (almost always the end).
    private func insertionPoint(for ordinal: UInt64) -> Int {
        if slots.last.map({ $0.ordinal < ordinal }) ?? true { return slots.count }
        return Self.lowerBound(of: ordinal, in: slots, from: head)
    }

    private func find(key: UUID) -> Int? {
        guard keyPrefixes.contains(Self.prefix(key)) else { return nil }
        var index = slots.count - 1
        while index >= head {
            if slots[index].key == key && slots[index].state != .removed { return index }
            index -= 1
        }
        return nil
    }

    private func unknown(_ ordinal: UInt64) -> StorageError {
        StorageError(code: .notFound, message: "Submission \(ordinal) is not in the queue in \(journal.directory); it was delivered already or never queued.")
    }

    private func intern(_ meta: Meta) -> UInt32 {
        if let index = metaIndex[meta] { return index }
        let index = UInt32(metas.count)
        metas.append(meta)
        metaIndex[meta] = index
        return index
    }

    func place(_ slot: inout Slot, at location: JournalLocation) {
        let segment: UInt32
        if let known = segmentIndex[location.segment] {
            segment = known
        } else {
            segment = UInt32(segmentNames.count)
            segmentNames.append(location.segment)
            segmentIndex[location.segment] = segment
            segmentRecords.append(0)
        }
        segmentRecords[Int(segment)] += 1
        slot.segment = segment
        slot.offset = UInt32(location.offset)
        slot.sequence = location.sequence
    }

    private func remember(_ key: UUID, response: String?) {
        // The key's prefix stays in `keyPrefixes`: another pending key may share it. A stale
        // prefix only costs a scan in `find`; `tidy` rebuilds the set.
        delivered[key] = .some(response)
        deliveredOrder.append(key)
        if deliveredOrder.count > options.rememberedDeliveries * 2 {
            let drop = deliveredOrder.count - options.rememberedDeliveries
            for old in deliveredOrder[..<drop] { delivered[old] = nil }
            deliveredOrder.removeFirst(drop)
        }
    }

    /// Advances past delivered slots at the front and drops delivered slots once they are half the array.
    private func tidy() {
        while head < slots.count && slots[head].state == .removed { head += 1; removedCount -= 1 }
        if head > 4096 && head * 2 > slots.count {
            slots.removeFirst(head)
            head = 0
        }
        if removedCount > 4096 && removedCount * 2 > slots.count - head {
            slots = slots[head...].filter { $0.state != .removed }
            head = 0
            removedCount = 0
            keyPrefixes = Set(slots.map { Self.prefix($0.key) })
        }
    }

    static func prefix(_ key: UUID) -> UInt32 {
        let u = key.uuid
        return UInt32(u.0) << 24 | UInt32(u.1) << 16 | UInt32(u.2) << 8 | UInt32(u.3)
    }
}

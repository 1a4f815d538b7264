// The operator's changes to the submission queue: dropping a dead letter, importing a submission
// exported from a queue, purging delivered bodies from disk now, and looking one submission up.

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Logging

extension SubmissionQueue {
    /// What an import did: queued the submission, or found its key known already (pending, dead
    /// or recently delivered), in which case nothing was written.
    public enum ImportResult: Sendable, Hashable {
        case queued(QueuedSubmission)
        case known(SubmissionState)
    }

    /// What a purge did: the bytes of the segment files before and after, and how many live
    /// submissions were carried into the new segment.
    public struct PurgeReport: Sendable, Hashable {
        public var bytesBefore: Int
        public var bytesAfter: Int
        public var carriedRecords: Int
        public var removedSegments: [String]
    }

    /// The pending or dead submission with this id; nil when there is none.
    public func submission(_ id: SubmissionID) -> QueuedSubmission? {
        index.position(of: id.ordinal).map { index.submission($0) }
    }

    /// Deletes a dead letter for good (a `dropped` record): it is not delivered, not remembered
    /// as delivered, and stays gone across restarts. Nil when `id` is not a dead letter.
    public func drop(_ id: SubmissionID) async throws -> DeadSubmission? {
        let ordinal = id.ordinal
        await gate.enterShared()
        defer { gate.leaveShared() }
        guard let letter = deadLetter(id), let before = index.position(of: ordinal), !requeueing.contains(ordinal) else { return nil }
        // Shares the requeue's guard: a drop and a requeue of one letter cannot both be written.
        requeueing.insert(ordinal)
        defer { requeueing.remove(ordinal) }
        _ = try await journal.append(type: RecordType.dropped.rawValue, payload: Codec.marker(ordinal, index.slots[before].key, text: nil), kind: .marker)
        guard let position = index.position(of: ordinal), index.slots[position].state == .dead else { return nil }
        index.slots[position].state = .removed
        index.removedCount += 1
        index.noteDropped(ordinal: ordinal)
        index.tidy()
        noteErasable()
        return letter
    }

    /// Queues a submission taken from another queue (or this one) by its export, under the
    /// idempotency key it carries, at the end of the order. A key this queue knows already
    /// (pending, dead or recently delivered) is not queued again: `.known` says where it stands.
    public func importSubmission(_ metadata: SubmissionMetadata, body: [UInt8]) async throws -> ImportResult {
        if let known = state(of: metadata.key) { return .known(known) }
        guard !importing.contains(metadata.key) else { return .known(.pending) }
        importing.insert(metadata.key)
        defer { importing.remove(metadata.key) }
        switch try await enqueue(metadata, body: body) {
        case .queued(let entry): return .queued(entry)
        case .alreadyQueued, .alreadyDelivered: return .known(state(of: metadata.key) ?? .pending)
        }
    }

    /// Removes every delivered (or dropped) body from disk now: the live submissions are carried
    /// into a new segment and every older segment, the active one included, is removed. Changes
    /// wait while it runs. A crash in between leaves both copies; replay keeps the newer one.
    public func purge() async throws -> PurgeReport {
        await gate.enterExclusive()
        defer { gate.leaveExclusive() }
        let before = try journal.segments()
        let bytesBefore = before.reduce(0) { $0 + $1.bytes }
        var first = true
        func kind() -> JournalAppendKind {
            defer { first = false }
            return first ? .snapshot : .carriedCopy
        }
        // The newest ordinal must stay on disk, or a restart would hand its number out again:
        // when its submission is gone, a `delivered` marker for it with the all-zero key keeps
        // it. Replay (of this or an older surveyd) finds the submission gone, as it is, also
        // when a crash left the old segments beside the new one.
        let newest = index.nextOrdinal - 1
        if newest > 0, index.position(of: newest) == nil {
            _ = try await journal.append(type: RecordType.delivered.rawValue, payload: Codec.marker(newest, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), text: nil), kind: kind())
        }
        var carried = 0
        for position in index.head..<index.slots.count where index.slots[position].state != .removed {
            try await carryForward(position, kind: kind())
            carried += 1
        }
        let doomed = before.map(\.name)
        try journal.removeSegments(doomed)
        let after = try journal.segments()
        // Every body of a delivered or dropped submission was in a segment removed now.
        erasableSince = nil
        erasableWaitStart = nil
        let removed = doomed.filter { name in !after.contains { $0.name == name } }
        logger.notice("queue purged", metadata: ["removed": "\(removed.count)", "carried": "\(carried)", "bytesBefore": "\(bytesBefore)", "bytesAfter": "\(after.reduce(0) { $0 + $1.bytes })"])
        return PurgeReport(bytesBefore: bytesBefore, bytesAfter: after.reduce(0) { $0 + $1.bytes }, carriedRecords: carried, removedSegments: removed)
    }

    /// Writes the live submission in slot `position` again (same ordinal, key, state and body)
    /// and points its slot at the copy.
    func carryForward(_ position: Int, kind: JournalAppendKind) async throws {
        let (record, decoded) = try storedRecord(index.slots[position])
        let slot = index.slots[position]
        let note = slot.state == .dead ? index.deadLetters[slot.ordinal] ?? DeadNote(reason: "", outcome: .unknown) : nil
        let state = Codec.State(deadReason: note?.reason, outcome: note?.outcome ?? .unknown, requeueKey: index.requeueKeys[slot.ordinal], consent: index.consents[slot.ordinal])
        let copy = Codec.enqueued(slot, index.metas[Int(slot.meta)], session: decoded.session, state: state, body: Array(record.payload[decoded.bodyStart...]))
        let location = try await journal.appendLocated(type: copy.type.rawValue, payload: copy.payload, kind: kind)
        var moved = slot
        index.place(&moved, at: location)
        index.slots[position] = moved
    }

    /// The bytes the queue's segment files hold together.
    public nonisolated var diskBytes: Int { journal.diskBytes }
}

extension SubmissionQueue {
    /// A submission as an export writes it: where it stands, what it is, and its body.
    public struct ExportedSubmission: Sendable, Hashable {
        public enum State: String, Sendable, Hashable { case pending, dead, delivered }
        public var id: SubmissionID
        public var state: State
        /// The submission's metadata; `metadata.key` is the key it was queued with.
        public var metadata: SubmissionMetadata
        /// The key it is sent with (a requeue's, or its own).
        public var idempotencyKey: UUID
        public var body: [UInt8]
    }

    /// The pending and dead submissions with their bodies, oldest first.
    public func exportLive(states: Set<ExportedSubmission.State>) throws -> [ExportedSubmission] {
        try exportLive(states: states, after: nil, limit: .max).submissions
    }

    /// At most `limit` of the pending and dead submissions in `states`, oldest first, starting
    /// after the submission `after` (from the first when nil), and the submission to start the
    /// next page after (nil when this page reached the end). An export of a large queue reads it
    /// page by page, so that only a page of bodies is in memory at once.
    public func exportLive(states: Set<ExportedSubmission.State>, after: SubmissionID?, limit: Int) throws -> (submissions: [ExportedSubmission], next: SubmissionID?) {
        var result: [ExportedSubmission] = []
        var position = after.map { index.lowerBound(of: $0.ordinal &+ 1, from: index.head) } ?? index.head
        while position < index.slots.count {
            if result.count >= limit { return (result, result.last?.id) }
            let slot = index.slots[position]
            position += 1
            let state: ExportedSubmission.State
            switch slot.state {
            case .pending: state = .pending
            case .dead: state = .dead
            case .removed: continue
            }
            guard states.contains(state) else { continue }
            let (record, decoded) = try storedRecord(slot)
            var submission = index.submission(position - 1)
            submission.metadata.session = decoded.session
            result.append(ExportedSubmission(id: submission.id, state: state, metadata: submission.metadata, idempotencyKey: submission.idempotencyKey, body: Array(record.payload[decoded.bodyStart...])))
        }
        return (result, nil)
    }

    /// The delivered submissions whose bodies are still on disk (until compaction or a purge
    /// removes them), in file order. Read from the segment files as they are now.
    public func exportDelivered() throws -> [ExportedSubmission] {
        var enqueued: [UInt64: (Codec.Enqueued, [UInt8])] = [:]
        var delivered: [UInt64] = []
        var requeueKeys: [UInt64: UUID] = [:]
        for record in try journal.allRecords() {
            switch RecordType(rawValue: record.type) {
            case .enqueued, .enqueuedWithState:
                if let e = Codec.decodeEnqueued(record.payload, type: record.type) { enqueued[e.ordinal] = (e, record.payload) }
            case .delivered:
                if let m = Codec.decodeMarker(record.payload), enqueued[m.ordinal] != nil, index.position(of: m.ordinal) == nil { delivered.append(m.ordinal) }
            case .requeued:
                if let m = Codec.decodeMarker(record.payload), let newKey = Codec.requeueKey(m.rest), let newKey { requeueKeys[m.ordinal] = newKey }
            default:
                break
            }
        }
        var seen = Set<UInt64>()
        return delivered.compactMap { ordinal in
            guard seen.insert(ordinal).inserted, let (e, payload) = enqueued[ordinal], let meta = e.meta else { return nil }
            let metadata = SubmissionMetadata(key: e.key, stage: meta.stage, language: meta.language, definitionHash: meta.definitionHash, queuedAt: Date(timeIntervalSince1970: e.queuedAt), session: e.session, consent: e.state.consent)
            return ExportedSubmission(id: SubmissionID(ordinal), state: .delivered, metadata: metadata, idempotencyKey: requeueKeys[ordinal] ?? e.state.requeueKey ?? e.key, body: Array(payload[e.bodyStart...]))
        }
    }
}

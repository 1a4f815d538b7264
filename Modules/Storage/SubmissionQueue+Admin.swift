// The operator's changes to the submission queue: dropping a dead letter, importing a submission
// exported from a queue, purging delivered bodies from disk now, and looking one submission up.

import Foundation

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
        return .queued(try await enqueue(metadata, body: body))
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
        let state = Codec.State(deadReason: note?.reason, outcome: note?.outcome ?? .unknown, requeueKey: index.requeueKeys[slot.ordinal])
        let copy = Codec.enqueued(slot, index.metas[Int(slot.meta)], session: decoded.session, state: state, body: Array(record.payload[decoded.bodyStart...]))
        let location = try await journal.appendLocated(type: copy.type.rawValue, payload: copy.payload, kind: kind)
        var moved = slot
        index.place(&moved, at: location)
        index.slots[position] = moved
    }

    /// The bytes the queue's segment files hold together.
    public nonisolated var diskBytes: Int { journal.diskBytes }
}

// Compaction of the submission queue: carrying the few live records of old segments forward and
// removing those segments, while changes wait.

import Foundation

extension SubmissionQueue {
    /// What one compaction did.
    public struct CompactionReport: Sendable, Hashable {
        public var removedSegments: [String]
        public var carriedRecords: Int
    }

    /// Removes sealed segments, oldest first, while at most `carryShare` of each one's records are
    /// still live; their live submissions are first written again (same ordinal, key and state)
    /// into the active segment. Changes wait while it runs.
    public func compact() async throws -> CompactionReport {
        await beginCompaction()
        defer { endCompaction() }
        let sealed = try journal.segments().filter { !$0.isActive }
        guard !sealed.isEmpty else { return CompactionReport(removedSegments: [], carriedRecords: 0) }
        var live: [UInt32: [Int]] = [:]
        for index in head..<slots.count where slots[index].state != .removed {
            live[slots[index].segment, default: []].append(index)
        }
        var doomed: [String] = []
        var carry: [Int] = []
        for segment in sealed {
            let id = segmentIndex[segment.name]
            let holders = id.flatMap { live[$0] } ?? []
            let records = id.map { segmentRecords[Int($0)] } ?? 0
            if !holders.isEmpty && Double(holders.count) > Double(records) * options.carryShare { break }
            doomed.append(segment.name)
            carry += holders
        }
        guard !doomed.isEmpty else { return CompactionReport(removedSegments: [], carriedRecords: 0) }
        for index in carry.sorted() {
            let (record, decoded) = try storedRecord(slots[index])
            let slot = slots[index]
            let note = slot.state == .dead ? deadLetters[slot.ordinal] ?? DeadNote(reason: "", outcome: .unknown) : nil
            let state = Codec.State(deadReason: note?.reason, outcome: note?.outcome ?? .unknown, requeueKey: requeueKeys[slot.ordinal])
            let copy = Codec.enqueued(slot, metas[Int(slot.meta)], session: decoded.session, state: state, body: Array(record.payload[decoded.bodyStart...]))
            let location = try await journal.appendLocated(type: copy.type.rawValue, payload: copy.payload, mayExceedCap: true, alwaysDurable: true)
            place(&slots[index], at: location)
        }
        try journal.removeSegments(doomed)
        logger.info("queue compacted", metadata: ["removed": "\(doomed.count)", "carried": "\(carry.count)"])
        return CompactionReport(removedSegments: doomed, carriedRecords: carry.count)
    }

    // MARK: Mutations and compaction exclude each other

    func beginMutation() async {
        while compacting { await withCheckedContinuation { waitingMutations.append($0) } }
        mutations += 1
    }

    func endMutation() {
        mutations -= 1
        if mutations == 0, let waiter = waitingCompaction {
            waitingCompaction = nil
            waiter.resume()
        }
    }

    func beginCompaction() async {
        while compacting { await withCheckedContinuation { waitingMutations.append($0) } }
        compacting = true
        if mutations > 0 { await withCheckedContinuation { waitingCompaction = $0 } }
    }

    func endCompaction() {
        compacting = false
        let waiters = waitingMutations
        waitingMutations = []
        for waiter in waiters { waiter.resume() }
    }
}

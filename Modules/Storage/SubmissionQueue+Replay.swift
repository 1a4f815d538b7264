// Rebuilding the submission queue in memory from its journal records, in file order.

import Foundation

extension SubmissionQueue {
    /// Rebuilds the in-memory queue from the records, in file order.
    struct Replay {
        /// Slots in file order, each ordinal above the one before (found by binary search).
        var slots: [Slot] = []
        /// Slots whose record came after a higher ordinal: a compaction's copies, enqueues that
        /// finished out of order. Few; each wins over an entry of `slots` with its ordinal.
        var late: [UInt64: Slot] = [:]
        /// How many delivered keys to remember; older ones are dropped while replaying.
        var remember = 4096
        var deadLetters: [UInt64: DeadNote] = [:]
        var requeueKeys: [UInt64: UUID] = [:]
        var delivered: [UUID: String?] = [:]
        var deliveredOrder: [UUID] = []
        var metas: [Meta] = []
        var metaIndex: [Meta: UInt32] = [:]
        var segmentNames: [String] = []
        var segmentIndex: [String: UInt32] = [:]
        var segmentRecords: [Int] = []
        var maxOrdinal: UInt64 = 0
        /// The (stage, language, hash) bytes of the last decoded record and their table index.
        var lastMetaBytes: [UInt8] = []
        var lastMeta: UInt32 = 0

        mutating func visit(_ record: JournalRecord, _ location: JournalLocation) throws {
            let segment: UInt32
            if let last = segmentNames.last, last == location.segment {
                segment = UInt32(segmentNames.count - 1)  // records come segment by segment
            } else if let known = segmentIndex[location.segment] {
                segment = known
            } else {
                segment = UInt32(segmentNames.count)
                segmentNames.append(location.segment)
                segmentIndex[location.segment] = segment
                segmentRecords.append(0)
            }
            segmentRecords[Int(segment)] += 1
            let damaged = StorageError(code: .undecodableRecord, message: "Queue record \(record.sequence) in \(location.segment) does not decode; the queue was written by an incompatible version.")
            switch RecordType(rawValue: record.type) {
            case .enqueued, .enqueuedWithState:
                guard let e = Codec.decodeEnqueued(record.payload, type: record.type, decodingMetaUnless: lastMetaBytes) else { throw damaged }
                maxOrdinal = max(maxOrdinal, e.ordinal)
                let meta: UInt32
                if let decodedMeta = e.meta {
                    if let index = metaIndex[decodedMeta] { meta = index } else {
                        meta = UInt32(metas.count)
                        metas.append(decodedMeta)
                        metaIndex[decodedMeta] = meta
                    }
                    lastMetaBytes = Array(record.payload[e.metaBytes])
                    lastMeta = meta
                } else {
                    meta = lastMeta  // the same bytes as the previous record's: no Strings built
                }
                let slot = Slot(ordinal: e.ordinal, key: e.key, queuedAt: e.queuedAt, sequence: location.sequence, offset: UInt32(location.offset), segment: segment, meta: meta, state: e.state.deadReason == nil ? .pending : .dead)
                if let last = slots.last, e.ordinal <= last.ordinal {
                    late[e.ordinal] = slot
                } else {
                    slots.append(slot)
                }
                if let reason = e.state.deadReason {
                    deadLetters[e.ordinal] = DeadNote(reason: reason, outcome: e.state.outcome)
                } else if !deadLetters.isEmpty {
                    deadLetters[e.ordinal] = nil
                }
                if let key = e.state.requeueKey {
                    requeueKeys[e.ordinal] = key
                } else if !requeueKeys.isEmpty {
                    requeueKeys[e.ordinal] = nil
                }
            case .delivered, .dead, .requeued:
                guard let m = Codec.decodeMarker(record.payload) else { throw damaged }
                maxOrdinal = max(maxOrdinal, m.ordinal)
                let state: SlotState
                switch RecordType(rawValue: record.type) {
                case .delivered:
                    state = .removed
                    deadLetters[m.ordinal] = nil
                    requeueKeys[m.ordinal] = nil
                    delivered[m.key] = .some(m.text)
                    deliveredOrder.append(m.key)
                    if deliveredOrder.count > remember * 2 { forgetOldDeliveries() }
                case .dead:
                    guard let outcome = Codec.deadOutcome(m.rest) else { throw damaged }
                    state = .dead
                    deadLetters[m.ordinal] = DeadNote(reason: m.text ?? "", outcome: outcome)
                default:
                    guard let newKey = Codec.requeueKey(m.rest) else { throw damaged }
                    state = .pending
                    deadLetters[m.ordinal] = nil
                    if let newKey { requeueKeys[m.ordinal] = newKey }
                }
                if late[m.ordinal] != nil {
                    late[m.ordinal]?.state = state
                } else if let index = index(of: m.ordinal) {
                    slots[index].state = state
                }
            case nil:
                throw StorageError(code: .undecodableRecord, message: "Queue record \(record.sequence) in \(location.segment) has unknown type \(record.type); the queue was written by a newer version.")
            }
        }

        func index(of ordinal: UInt64) -> Int? {
            let low = SubmissionQueue.lowerBound(of: ordinal, in: slots, from: 0)
            return low < slots.count && slots[low].ordinal == ordinal ? low : nil
        }

        mutating func forgetOldDeliveries() {
            let drop = deliveredOrder.count - remember
            guard drop > 0 else { return }
            for old in deliveredOrder[..<drop] { delivered[old] = nil }
            deliveredOrder.removeFirst(drop)
        }

        /// Keeps the pending and dead slots, sorted by ordinal, in place where it can.
        mutating func finish() {
            if late.isEmpty {
                slots.removeAll { $0.state == .removed }
            } else {
                slots.removeAll { $0.state == .removed || late[$0.ordinal] != nil }
                slots += late.values.filter { $0.state != .removed }
                slots.sort { $0.ordinal < $1.ordinal }
                late = [:]
            }
            forgetOldDeliveries()
        }
    }
}

// Rebuilding the submission queue in memory (`SubmissionQueue.Index`) from its journal records,
// in file order.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SubmissionQueue {
    /// Rebuilds the in-memory queue from the records, in file order.
    struct Replay {
        /// What is rebuilt. While replaying, its slots are in file order, each ordinal above the
        /// one before (found by binary search).
        var index: Index
        /// Slots whose record came after a higher ordinal: a compaction's copies, enqueues that
        /// finished out of order. Few; each wins over an entry of `index.slots` with its ordinal.
        var late: [UInt64: Slot] = [:]
        var maxOrdinal: UInt64 = 0
        /// The (stage, language, hash) encodings met most recently, with their table index: a
        /// record whose encoding is among them builds no Strings.
        var recentMetas = RecentMetas()
        /// Delivered or dropped submissions whose body is still in the segment files.
        var erasableBodies = 0

        init(rememberedDeliveries: Int) {
            index = Index(rememberedDeliveries: rememberedDeliveries)
        }

        mutating func visit(_ record: JournalRecord, _ location: JournalLocation) throws {
            let segment = index.countRecord(in: location.segment)
            // Built only when a record does not decode: replay meets a million records.
            func damaged() -> StorageError {
                StorageError(code: .undecodableRecord, message: "Queue record \(record.sequence) in \(location.segment) does not decode; the queue was written by an incompatible version.")
            }
            switch RecordType(rawValue: record.type) {
            case .enqueued, .enqueuedWithState:
                guard let e = Codec.decodeEnqueued(record.payload, type: record.type, decodingMeta: false) else { throw damaged() }
                maxOrdinal = max(maxOrdinal, e.ordinal)
                let meta: UInt32
                if let known = recentMetas.find(record.payload, e.metaBytes) {
                    meta = known
                } else {
                    guard let decoded = Codec.meta(record.payload, e.metaBytes) else { throw damaged() }
                    meta = index.intern(decoded)
                    recentMetas.add(Array(record.payload[e.metaBytes]), meta)
                }
                let slot = Slot(ordinal: e.ordinal, key: e.key, queuedAt: e.queuedAt, sequence: location.sequence, offset: UInt32(location.offset), segment: segment, meta: meta, state: e.state.deadReason == nil ? .pending : .dead)
                if let last = index.slots.last, e.ordinal <= last.ordinal {
                    late[e.ordinal] = slot
                } else {
                    index.slots.append(slot)
                }
                if let reason = e.state.deadReason {
                    index.deadLetters[e.ordinal] = DeadNote(reason: reason, outcome: e.state.outcome)
                } else if !index.deadLetters.isEmpty {
                    index.deadLetters[e.ordinal] = nil
                }
                if let key = e.state.requeueKey {
                    index.requeueKeys[e.ordinal] = key
                } else if !index.requeueKeys.isEmpty {
                    index.requeueKeys[e.ordinal] = nil
                }
                if let consent = e.state.consent {
                    index.consents[e.ordinal] = consent
                } else if !index.consents.isEmpty {
                    index.consents[e.ordinal] = nil
                }
            case .delivered, .dead, .requeued, .dropped:
                guard let m = Codec.decodeMarker(record.payload) else { throw damaged() }
                maxOrdinal = max(maxOrdinal, m.ordinal)
                let state: SlotState
                switch RecordType(rawValue: record.type) {
                case .delivered:
                    state = .removed
                    index.noteDelivered(ordinal: m.ordinal, key: m.key, response: m.text)
                case .dropped:
                    guard m.rest.isEmpty else { throw damaged() }
                    state = .removed
                    index.noteDropped(ordinal: m.ordinal)
                case .dead:
                    guard let outcome = Codec.deadOutcome(m.rest) else { throw damaged() }
                    state = .dead
                    index.deadLetters[m.ordinal] = DeadNote(reason: m.text ?? "", outcome: outcome)
                default:
                    guard let newKey = Codec.requeueKey(m.rest) else { throw damaged() }
                    state = .pending
                    index.noteRequeued(ordinal: m.ordinal, newKey: newKey)
                }
                if late[m.ordinal] != nil {
                    if state == .removed && late[m.ordinal]?.state != .removed { erasableBodies += 1 }
                    late[m.ordinal]?.state = state
                } else if let position = position(of: m.ordinal) {
                    if state == .removed && index.slots[position].state != .removed { erasableBodies += 1 }
                    index.slots[position].state = state
                }
            case nil:
                throw StorageError(code: .undecodableRecord, message: "Queue record \(record.sequence) in \(location.segment) has unknown type \(record.type); the queue was written by a newer version.")
            }
        }

        /// The slot with `ordinal` among those in file order (removed ones included).
        func position(of ordinal: UInt64) -> Int? {
            let low = index.lowerBound(of: ordinal, from: 0)
            return low < index.slots.count && index.slots[low].ordinal == ordinal ? low : nil
        }

        /// Keeps the pending and dead slots, sorted by ordinal, in place where it can, and hands
        /// the index over.
        mutating func finish() -> Index {
            if late.isEmpty {
                index.slots.removeAll { $0.state == .removed }
            } else {
                index.slots.removeAll { $0.state == .removed || late[$0.ordinal] != nil }
                index.slots += late.values.filter { $0.state != .removed }
                index.slots.sort { $0.ordinal < $1.ordinal }
                late = [:]
            }
            index.forgetOldDeliveries()
            index.countSlots()
            index.nextOrdinal = maxOrdinal + 1
            return index
        }
    }
}

extension SubmissionQueue.Replay {
    /// The last few distinct (stage, language, hash) encodings and their table index. Records
    /// come from a few stages and languages at a time, interleaved; finding the bytes here costs a
    /// few comparisons instead of three Strings and a hash.
    struct RecentMetas {
        static let capacity = 16
        private var entries: [(bytes: [UInt8], meta: UInt32)] = []
        private var oldest = 0

        func find(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32? {
            for entry in entries where entry.bytes.count == range.count && SubmissionQueue.Codec.Reader.same(bytes, range, entry.bytes) {
                return entry.meta
            }
            return nil
        }

        mutating func add(_ bytes: [UInt8], _ meta: UInt32) {
            if entries.count < Self.capacity {
                entries.append((bytes, meta))
            } else {
                entries[oldest] = (bytes, meta)
                oldest = (oldest + 1) % Self.capacity
            }
        }
    }
}

// The submission queue in memory: one small fixed-size slot per pending or dead submission, kept
// in ordinal order, with the tables they share. Replay (SubmissionQueue+Replay.swift) builds it
// from the journal records and the live queue (SubmissionQueue.swift) keeps changing it, through
// the same methods.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SubmissionQueue {
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

    struct Index {
        /// Sorted by ordinal; those before `head` are all removed.
        var slots: [Slot] = []
        var head = 0
        /// Removed slots at or after `head`.
        var removedCount = 0
        var pendingCount = 0
        /// The dead letters' reasons and outcomes, by ordinal.
        var deadLetters: [UInt64: DeadNote] = [:]
        /// The idempotency keys requeues gave, by ordinal (few: rejected letters sent again).
        var requeueKeys: [UInt64: UUID] = [:]
        /// The consent versions submissions carry, by ordinal (none where the kiosk asks for none).
        var consents: [UInt64: String] = [:]
        /// The first four bytes of every slot's key (a few stale ones too): most keys that are
        /// not queued are told apart without a scan.
        var keyPrefixes = KeyPrefixes()
        /// Recently delivered keys with their responses, and their order.
        var delivered: [UUID: String?] = [:]
        var deliveredOrder: [UUID] = []
        /// How many delivered keys are remembered (between this and twice this).
        var rememberedDeliveries: Int
        var metas: [Meta] = []
        var metaIndex: [Meta: UInt32] = [:]
        var segmentNames: [String] = []
        var segmentIndex: [String: UInt32] = [:]
        /// Records (live or not) per segment, by segment number.
        var segmentRecords: [Int] = []
        var nextOrdinal: UInt64 = 1

        init(rememberedDeliveries: Int) {
            self.rememberedDeliveries = rememberedDeliveries
        }

        // MARK: Tables

        /// The table index of `meta`, added when it is new.
        mutating func intern(_ meta: Meta) -> UInt32 {
            if let index = metaIndex[meta] { return index }
            let index = UInt32(metas.count)
            metas.append(meta)
            metaIndex[meta] = index
            return index
        }

        /// The number of `segment`, added when it is new, with one more record counted in it.
        mutating func countRecord(in segment: String) -> UInt32 {
            let number: UInt32
            if let last = segmentNames.last, last == segment {
                number = UInt32(segmentNames.count - 1)  // records come segment by segment
            } else if let known = segmentIndex[segment] {
                number = known
            } else {
                number = UInt32(segmentNames.count)
                segmentNames.append(segment)
                segmentIndex[segment] = number
                segmentRecords.append(0)
            }
            segmentRecords[Int(number)] += 1
            return number
        }

        /// Records where the slot's record now lies.
        mutating func place(_ slot: inout Slot, at location: JournalLocation) {
            slot.segment = countRecord(in: location.segment)
            slot.offset = UInt32(location.offset)
            slot.sequence = location.sequence
        }

        func location(of slot: Slot) -> JournalLocation {
            JournalLocation(sequence: slot.sequence, segment: segmentNames[Int(slot.segment)], offset: Int(slot.offset))
        }

        // MARK: What markers change

        /// A delivery: the submission is no dead letter and has no requeue key any more, and its
        /// key is remembered with the response. The caller sets the slot's state.
        mutating func noteDelivered(ordinal: UInt64, key: UUID, response: String?) {
            deadLetters[ordinal] = nil
            requeueKeys[ordinal] = nil
            consents[ordinal] = nil
            // The key's prefix stays in `keyPrefixes`: another key may share it. A stale prefix
            // only costs a scan in `find`; `tidy` rebuilds the set.
            delivered[key] = .some(response)
            deliveredOrder.append(key)
            if deliveredOrder.count > rememberedDeliveries * 2 { forgetOldDeliveries() }
        }

        /// A dead letter dropped by the operator: gone, and its key is not remembered as delivered.
        mutating func noteDropped(ordinal: UInt64) {
            deadLetters[ordinal] = nil
            requeueKeys[ordinal] = nil
            consents[ordinal] = nil
        }

        mutating func noteRequeued(ordinal: UInt64, newKey: UUID?) {
            deadLetters[ordinal] = nil
            if let newKey { requeueKeys[ordinal] = newKey }
        }

        /// Keeps the newest `rememberedDeliveries` delivered keys.
        mutating func forgetOldDeliveries() {
            let drop = deliveredOrder.count - rememberedDeliveries
            guard drop > 0 else { return }
            for old in deliveredOrder[..<drop] { delivered[old] = nil }
            deliveredOrder.removeFirst(drop)
        }

        // MARK: Finding slots

        /// The first index from `start` whose slot's ordinal is not below `ordinal`.
        func lowerBound(of ordinal: UInt64, from start: Int) -> Int {
            var low = start
            var high = slots.count
            while low < high {
                let mid = (low + high) / 2
                if slots[mid].ordinal < ordinal { low = mid + 1 } else { high = mid }
            }
            return low
        }

        /// The index of the pending or dead slot with `ordinal`.
        func position(of ordinal: UInt64) -> Int? {
            let low = lowerBound(of: ordinal, from: head)
            guard low < slots.count, slots[low].ordinal == ordinal, slots[low].state != .removed else { return nil }
            return low
        }

        /// Where a slot with `ordinal` goes to keep the slots sorted (almost always the end).
        func insertionPoint(for ordinal: UInt64) -> Int {
            if slots.last.map({ $0.ordinal < ordinal }) ?? true { return slots.count }
            return lowerBound(of: ordinal, from: head)
        }

        /// The index of the pending or dead slot with `key`.
        func find(key: UUID) -> Int? {
            guard keyPrefixes.contains(Index.prefix(key)) else { return nil }
            var index = slots.count - 1
            while index >= head {
                if slots[index].key == key && slots[index].state != .removed { return index }
                index -= 1
            }
            return nil
        }

        static func prefix(_ key: UUID) -> UInt32 {
            let u = key.uuid
            return UInt32(u.0) << 24 | UInt32(u.1) << 16 | UInt32(u.2) << 8 | UInt32(u.3)
        }

        /// The submission in slot `index`, without its session (read back from disk on demand).
        func submission(_ index: Int) -> QueuedSubmission {
            let slot = slots[index]
            let meta = metas[Int(slot.meta)]
            return QueuedSubmission(id: SubmissionID(slot.ordinal), metadata: SubmissionMetadata(
                key: slot.key, stage: meta.stage, language: meta.language, definitionHash: meta.definitionHash,
                queuedAt: Date(timeIntervalSince1970: slot.queuedAt), session: nil,
                consent: consents.isEmpty ? nil : consents[slot.ordinal]),
                requeueKey: requeueKeys.isEmpty ? nil : requeueKeys[slot.ordinal])
        }

        // MARK: Upkeep

        /// Counts the pending slots and collects the key prefixes, once the slots are complete.
        mutating func countSlots() {
            pendingCount = slots.lazy.filter { $0.state == .pending }.count
            keyPrefixes = KeyPrefixes(minimumCapacity: slots.count)
            for slot in slots { keyPrefixes.insert(Index.prefix(slot.key)) }
        }

        /// Advances past removed slots at the front and drops removed slots once they are half
        /// the array.
        mutating func tidy() {
            while head < slots.count && slots[head].state == .removed { head += 1; removedCount -= 1 }
            if head > 4096 && head * 2 > slots.count {
                slots.removeFirst(head)
                head = 0
            }
            if removedCount > 4096 && removedCount * 2 > slots.count - head {
                slots = slots[head...].filter { $0.state != .removed }
                head = 0
                removedCount = 0
                keyPrefixes = KeyPrefixes(minimumCapacity: slots.count)
                for slot in slots { keyPrefixes.insert(Index.prefix(slot.key)) }
            }
        }
    }
}

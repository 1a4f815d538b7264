// The binary encoding of the submission queue's journal records (doc/journal-format.md).

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SubmissionQueue {
    /// A compact binary encoding: fixed fields little-endian, strings as a 32-bit length and UTF-8.
    enum Codec {
        /// What an `enqueued` record says beyond the submission itself: whether it is a dead letter
        /// (its reason and outcome) and the idempotency key a requeue gave it.
        struct State: Equatable {
            var deadReason: String?
            var outcome: DeadOutcome = .unknown
            var requeueKey: UUID?
            /// The version of the consent notice the respondent agreed to (sent as `Survey-Consent`).
            var consent: String?

            static let pending = State()

            /// The flags byte of an `enqueuedWithState` record (bit 0: dead, bit 1: rejected, bit 2:
            /// requeue key, bit 3: consent), or nil when the state fits the `enqueued` record's dead
            /// flag (0 or 1).
            var extendedFlags: UInt8? {
                guard requeueKey != nil || consent != nil || (deadReason != nil && outcome == .rejected) else { return nil }
                return (deadReason != nil ? 1 : 0) | (deadReason != nil && outcome == .rejected ? 2 : 0) | (requeueKey != nil ? 4 : 0) | (consent != nil ? 8 : 0)
            }
        }

        /// The record for a submission: `enqueued` unless its state needs `enqueuedWithState`.
        static func enqueued(_ slot: Slot, _ meta: Meta, session: UUID?, state: State = .pending, body: [UInt8]) -> (type: RecordType, payload: [UInt8]) {
            var out: [UInt8] = []
            out.reserveCapacity(112 + meta.definitionHash.utf8.count + (state.deadReason?.utf8.count ?? 0) + body.count)
            put(&out, slot.ordinal)
            put(&out, slot.key)
            put(&out, slot.queuedAt.bitPattern)
            if let session { out.append(1); put(&out, session) } else { out.append(0) }
            put(&out, meta.stage)
            put(&out, meta.language)
            put(&out, meta.definitionHash)
            let flags = state.extendedFlags
            out.append(flags ?? (state.deadReason != nil ? 1 : 0))
            if let reason = state.deadReason { put(&out, reason) }
            if let key = state.requeueKey { put(&out, key) }
            if let consent = state.consent { put(&out, consent) }
            out += body
            return (flags == nil ? .enqueued : .enqueuedWithState, out)
        }

        static func marker(_ ordinal: UInt64, _ key: UUID, text: String?) -> [UInt8] {
            var out: [UInt8] = []
            put(&out, ordinal)
            put(&out, key)
            if let text { out.append(1); put(&out, text) } else { out.append(0) }
            return out
        }

        /// A `dead` marker: the marker with the reason, then the outcome byte (0 unknown, 1 rejected).
        static func deadMarker(_ ordinal: UInt64, _ key: UUID, reason: String, outcome: DeadOutcome) -> [UInt8] {
            marker(ordinal, key, text: reason) + [outcome == .rejected ? 1 : 0]
        }

        /// A `requeued` marker: the marker without text, then the new idempotency key when the requeue gave one.
        static func requeuedMarker(_ ordinal: UInt64, _ key: UUID, newKey: UUID?) -> [UInt8] {
            var out = marker(ordinal, key, text: nil)
            if let newKey { put(&out, newKey) }
            return out
        }

        struct Enqueued {
            var ordinal: UInt64
            var key: UUID
            var queuedAt: Double
            var session: UUID?
            /// Nil when the caller asked for none (it knows the meta bytes already).
            var meta: Meta?
            var metaBytes: Range<Int>
            var state: State
            var bodyStart: Int
        }

        /// Decodes an `enqueued` (type 1) or `enqueuedWithState` (type 5) record. Without
        /// `decodingMeta`, the (stage, language, hash) Strings are not built (`meta(_:_:)` builds
        /// them from `metaBytes`).
        static func decodeEnqueued(_ bytes: [UInt8], type: UInt8, decodingMeta: Bool = true) -> Enqueued? {
            var reader = Reader(bytes: bytes)
            guard let ordinal = reader.u64(), let key = reader.uuid(), let time = reader.u64(), let hasSession = reader.byte() else { return nil }
            var session: UUID?
            if hasSession == 1 { guard let s = reader.uuid() else { return nil }; session = s }
            let metaStart = reader.offset
            guard let stage = reader.stringRange(), let language = reader.stringRange(), let hash = reader.stringRange() else { return nil }
            let metaBytes = metaStart..<reader.offset
            let meta = decodingMeta ? Meta(stage: Reader.text(bytes, stage), language: Reader.text(bytes, language), definitionHash: Reader.text(bytes, hash)) : nil
            guard let raw = reader.byte() else { return nil }
            let flags: UInt8
            if type == RecordType.enqueuedWithState.rawValue {
                guard raw & ~15 == 0, raw & 3 != 2 else { return nil }  // unknown bits, or rejected without dead
                flags = raw
            } else {
                flags = raw == 1 ? 1 : 0  // as every version before read it: 1 is dead, anything else pending
            }
            var state = State()
            if flags & 1 != 0 { guard let r = reader.string() else { return nil }; state.deadReason = r }
            if flags & 2 != 0 { state.outcome = .rejected }
            if flags & 4 != 0 { guard let k = reader.uuid() else { return nil }; state.requeueKey = k }
            if flags & 8 != 0 { guard let c = reader.string() else { return nil }; state.consent = c }
            return Enqueued(ordinal: ordinal, key: key, queuedAt: Double(bitPattern: time), session: session, meta: meta, metaBytes: metaBytes, state: state, bodyStart: reader.offset)
        }

        /// The (stage, language, hash) whose encoding is `bytes[range]` (an `Enqueued`'s `metaBytes`).
        static func meta(_ bytes: [UInt8], _ range: Range<Int>) -> Meta? {
            var reader = Reader(bytes: Array(bytes[range]))
            guard let stage = reader.string(), let language = reader.string(), let hash = reader.string() else { return nil }
            return Meta(stage: stage, language: language, definitionHash: hash)
        }

        /// A marker's ordinal, key and text, and the bytes after them (`dead` and `requeued`
        /// markers carry more there since the dead-letter outcome was added; older ones end).
        static func decodeMarker(_ bytes: [UInt8]) -> (ordinal: UInt64, key: UUID, text: String?, rest: ArraySlice<UInt8>)? {
            var reader = Reader(bytes: bytes)
            guard let ordinal = reader.u64(), let key = reader.uuid(), let hasText = reader.byte() else { return nil }
            var text: String?
            if hasText == 1 { guard let t = reader.string() else { return nil }; text = t }
            return (ordinal, key, text, bytes[reader.offset...])
        }

        /// The outcome byte after a `dead` marker's reason: absent in markers written before it
        /// existed, which are read as `unknown` (a requeue then keeps the key, as it always did).
        static func deadOutcome(_ rest: ArraySlice<UInt8>) -> DeadOutcome? {
            switch Array(rest) {
            case [], [0]: .unknown
            case [1]: .rejected
            default: nil
            }
        }

        /// The new idempotency key after a `requeued` marker; nil inside when the requeue kept the key.
        static func requeueKey(_ rest: ArraySlice<UInt8>) -> UUID?? {
            if rest.isEmpty { return .some(nil) }
            guard rest.count == 16 else { return nil }
            var reader = Reader(bytes: Array(rest))
            return reader.uuid()
        }

        static func put(_ out: inout [UInt8], _ value: UInt64) {
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        }

        static func put(_ out: inout [UInt8], _ value: UUID) {
            withUnsafeBytes(of: value.uuid) { out.append(contentsOf: $0) }
        }

        static func put(_ out: inout [UInt8], _ value: String) {
            let utf8 = Array(value.utf8)
            withUnsafeBytes(of: UInt32(utf8.count).littleEndian) { out.append(contentsOf: $0) }
            out += utf8
        }

        struct Reader {
            let bytes: [UInt8]
            var offset = 0

            mutating func byte() -> UInt8? {
                guard offset < bytes.count else { return nil }
                defer { offset += 1 }
                return bytes[offset]
            }

            mutating func u64() -> UInt64? {
                guard offset + 8 <= bytes.count else { return nil }
                defer { offset += 8 }
                return bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
            }

            mutating func uuid() -> UUID? {
                guard offset + 16 <= bytes.count else { return nil }
                defer { offset += 16 }
                return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(fromByteOffset: offset, as: uuid_t.self)) }
            }

            mutating func string() -> String? {
                stringRange().map { Reader.text(bytes, $0) }
            }

            /// Where the next length-prefixed string's bytes lie, without building it.
            mutating func stringRange() -> Range<Int>? {
                guard offset + 4 <= bytes.count else { return nil }
                let length = Int(bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) })
                guard length <= bytes.count - offset - 4 else { return nil }
                defer { offset += 4 + length }
                return (offset + 4)..<(offset + 4 + length)
            }

            /// Whether `bytes[range]` equals `other` (a memcmp).
            static func same(_ bytes: [UInt8], _ range: Range<Int>, _ other: [UInt8]) -> Bool {
                bytes.withUnsafeBytes { a in
                    other.withUnsafeBytes { b in memcmp(a.baseAddress! + range.lowerBound, b.baseAddress!, range.count) == 0 }
                }
            }

            static func text(_ bytes: [UInt8], _ range: Range<Int>) -> String {
                String(decoding: bytes[range], as: UTF8.self)
            }
        }
    }
}

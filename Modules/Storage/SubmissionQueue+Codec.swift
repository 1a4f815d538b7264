// The binary encoding of the submission queue's journal records (doc/journal-format.md).

import Foundation

extension SubmissionQueue {
    /// A compact binary encoding: fixed fields little-endian, strings as a 32-bit length and UTF-8.
    enum Codec {
        static func enqueued(_ slot: Slot, _ meta: Meta, session: UUID?, reason: String?, body: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(96 + meta.definitionHash.utf8.count + body.count)
            put(&out, slot.ordinal)
            put(&out, slot.key)
            put(&out, slot.queuedAt.bitPattern)
            if let session { out.append(1); put(&out, session) } else { out.append(0) }
            put(&out, meta.stage)
            put(&out, meta.language)
            put(&out, meta.definitionHash)
            if let reason { out.append(1); put(&out, reason) } else { out.append(0) }
            out += body
            return out
        }

        static func marker(_ ordinal: UInt64, _ key: UUID, text: String?) -> [UInt8] {
            var out: [UInt8] = []
            put(&out, ordinal)
            put(&out, key)
            if let text { out.append(1); put(&out, text) } else { out.append(0) }
            return out
        }

        struct Enqueued {
            var ordinal: UInt64
            var key: UUID
            var queuedAt: Double
            var session: UUID?
            /// Nil when the meta bytes equal the ones the caller passed (it knows them already).
            var meta: Meta?
            var metaBytes: Range<Int>
            var deadReason: String?
            var bodyStart: Int
        }

        /// Decodes an enqueued record. With `known`, the (stage, language, hash) Strings are only
        /// built when their bytes differ from `known`.
        static func decodeEnqueued(_ bytes: [UInt8], decodingMetaUnless known: [UInt8]? = nil) -> Enqueued? {
            var reader = Reader(bytes: bytes)
            guard let ordinal = reader.u64(), let key = reader.uuid(), let time = reader.u64(), let hasSession = reader.byte() else { return nil }
            var session: UUID?
            if hasSession == 1 { guard let s = reader.uuid() else { return nil }; session = s }
            let metaStart = reader.offset
            guard let stage = reader.stringRange(), let language = reader.stringRange(), let hash = reader.stringRange() else { return nil }
            let metaBytes = metaStart..<reader.offset
            var meta: Meta?
            if let known, known.count == metaBytes.count, Reader.same(bytes, metaBytes, known) {
                meta = nil
            } else {
                meta = Meta(stage: Reader.text(bytes, stage), language: Reader.text(bytes, language), definitionHash: Reader.text(bytes, hash))
            }
            guard let hasReason = reader.byte() else { return nil }
            var reason: String?
            if hasReason == 1 { guard let r = reader.string() else { return nil }; reason = r }
            return Enqueued(ordinal: ordinal, key: key, queuedAt: Double(bitPattern: time), session: session, meta: meta, metaBytes: metaBytes, deadReason: reason, bodyStart: reader.offset)
        }

        static func decodeMarker(_ bytes: [UInt8]) -> (ordinal: UInt64, key: UUID, text: String?)? {
            var reader = Reader(bytes: bytes)
            guard let ordinal = reader.u64(), let key = reader.uuid(), let hasText = reader.byte() else { return nil }
            if hasText == 1 { guard let text = reader.string() else { return nil }; return (ordinal, key, text) }
            return (ordinal, key, nil)
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

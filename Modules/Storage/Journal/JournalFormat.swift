// The record frame: how one record is laid out in a segment file (doc/journal-format.md). The
// writer encodes with it, recovery and the reader decode with it; nothing else knows the layout.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One record read back from the journal.
public struct JournalRecord: Sendable, Equatable {
    public var sequence: UInt64
    public var type: UInt8
    public var payload: [UInt8]
}

/// Frame layout constants.
enum Frame {
    static let magic: UInt32 = 0x3153_5653  // "SVS1" little-endian
    static let headerSize = 21  // magic 4, length 4, crc 4, type 1, sequence 8

    static func encode(type: UInt8, sequence: UInt64, payload: [UInt8], into out: inout [UInt8]) {
        func put32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        var body: [UInt8] = [type]
        withUnsafeBytes(of: sequence.littleEndian) { body.append(contentsOf: $0) }
        var crc = body.withUnsafeBytes { CRC32C.update(0, $0) }
        crc = payload.withUnsafeBytes { CRC32C.update(crc, $0) }
        put32(magic)
        put32(UInt32(payload.count))
        put32(crc)
        out.append(contentsOf: body)
        out.append(contentsOf: payload)
    }

    /// The size of the frame at `offset` as its header claims, when the header is sound: the
    /// magic, a length within the bound (`sealed`: with the tag), the frame inside `bytes`. Its
    /// CRC is not checked: a frame that fails it is damaged as far as this says.
    static func claimedSize(_ bytes: UnsafeRawBufferPointer, at offset: Int, maxPayload: Int, sealed: Bool) -> Int? {
        guard offset + headerSize <= bytes.count else { return nil }
        guard UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) == magic else { return nil }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
        guard length <= maxPayload + (sealed ? RecordCipher.tagSize : 0), offset + headerSize + length <= bytes.count else { return nil }
        return headerSize + length
    }

    /// Parses one frame at `offset`; nil when it is incomplete or invalid. Never allocates more than the file holds.
    /// With `cipher`, the payload is opened with it (the frame lies at `position` of its segment,
    /// `offset` unless `bytes` starts elsewhere); a frame that does not authenticate is invalid.
    static func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int, maxPayload: Int, cipher: RecordCipher? = nil, position: Int? = nil) -> (JournalRecord, Int)? {
        guard offset + headerSize <= bytes.count else { return nil }
        func u32(_ o: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + o, as: UInt32.self)) }
        guard u32(0) == magic else { return nil }
        let length = Int(u32(4))
        // A sealed payload carries its tag beyond the largest payload.
        guard length <= maxPayload + (cipher == nil ? 0 : RecordCipher.tagSize), offset + headerSize + length <= bytes.count else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 12)..<(offset + headerSize + length)])
        guard CRC32C.update(0, body) == u32(8) else { return nil }
        let type = bytes[offset + 12]
        let seq = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 13, as: UInt64.self))
        let stored = UnsafeRawBufferPointer(rebasing: bytes[(offset + headerSize)..<(offset + headerSize + length)])
        let payload: [UInt8]
        if let cipher {
            guard let opened = cipher.open(type: type, sequence: seq, sealed: stored, offset: position ?? offset) else { return nil }
            payload = opened
        } else {
            payload = Array(stored)
        }
        return (JournalRecord(sequence: seq, type: type, payload: payload), headerSize + length)
    }
}

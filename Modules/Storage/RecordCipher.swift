// Sealing and opening the records of an encrypted segment (doc/journal-format.md, "Encryption"):
// ChaCha20-Poly1305 under the segment's data key, the nonce from the record's offset in the
// segment, the frame's header (magic, length, type, sequence number) as associated data. The
// frame keeps its CRC32C, computed over what is stored, for torn writes.

import Crypto
import Foundation

/// The data key of one segment (or one run of it, after a fresh salt), and what it was made from.
struct RecordCipher: Sendable {
    let key: SymmetricKey
    /// Whether the segment is under the current key or an old one.
    let protection: SegmentProtection

    static let tagSize = 16

    /// The nonce of the record whose frame starts at `offset`: the offset, little-endian, in the
    /// first 8 of the 12 bytes. Within a segment's data key, no two records share an offset.
    static func nonce(_ offset: Int) -> ChaChaPoly.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        withUnsafeBytes(of: UInt64(offset).littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
        // 12 bytes always make a nonce.
        return try! ChaChaPoly.Nonce(data: bytes)
    }

    /// The associated data: the frame header without its CRC.
    static func associatedData(length: Int, type: UInt8, sequence: UInt64) -> [UInt8] {
        var aad: [UInt8] = []
        aad.reserveCapacity(17)
        withUnsafeBytes(of: Frame.magic.littleEndian) { aad.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(length).littleEndian) { aad.append(contentsOf: $0) }
        aad.append(type)
        withUnsafeBytes(of: sequence.littleEndian) { aad.append(contentsOf: $0) }
        return aad
    }

    /// Appends the frame of `payload`, sealed, to `out`; `offset` is where the frame starts in
    /// the segment.
    func encode(type: UInt8, sequence: UInt64, payload: [UInt8], offset: Int, into out: inout [UInt8]) throws {
        let length = payload.count + Self.tagSize
        let aad = Self.associatedData(length: length, type: type, sequence: sequence)
        let box = try ChaChaPoly.seal(payload, using: key, nonce: Self.nonce(offset), authenticating: aad)
        var crc = aad.withUnsafeBytes { CRC32C.update(0, UnsafeRawBufferPointer(rebasing: $0[8...])) }
        crc = box.ciphertext.withUnsafeBytes { CRC32C.update(crc, $0) }
        crc = box.tag.withUnsafeBytes { CRC32C.update(crc, $0) }
        out.append(contentsOf: aad[0..<8])
        withUnsafeBytes(of: crc.littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: aad[8...])
        out.append(contentsOf: box.ciphertext)
        out.append(contentsOf: box.tag)
    }

    /// The payload of a frame whose CRC checked, or nil when it does not authenticate (changed,
    /// moved to another offset or segment, or another frame's header).
    func open(type: UInt8, sequence: UInt64, sealed: UnsafeRawBufferPointer, offset: Int) -> [UInt8]? {
        guard sealed.count >= Self.tagSize else { return nil }
        let aad = Self.associatedData(length: sealed.count, type: type, sequence: sequence)
        let split = sealed.count - Self.tagSize
        guard let box = try? ChaChaPoly.SealedBox(
            nonce: Self.nonce(offset),
            ciphertext: UnsafeRawBufferPointer(rebasing: sealed[..<split]),
            tag: UnsafeRawBufferPointer(rebasing: sealed[split...])),
              let plain = try? ChaChaPoly.open(box, using: key, authenticating: aad) else { return nil }
        return Array(plain)
    }
}

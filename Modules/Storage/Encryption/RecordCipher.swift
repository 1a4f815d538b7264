// Sealing and opening the records of an encrypted segment (doc/journal-format.md, "Encryption"):
// ChaCha20-Poly1305 under the segment's data key, the nonce from the record's offset in the
// segment, the frame's header (magic, length, type, sequence number) as associated data. The
// frame keeps its CRC32C, computed over what is stored, for torn writes.

import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The data key of one segment (or one run of it, after a fresh salt), and what it was made from.
struct RecordCipher: Sendable {
    let key: SymmetricKey
    /// Whether the segment is under the current key or an old one.
    let protection: SegmentProtection

    static let tagSize = 16

    /// The nonce of the record whose frame starts at `offset`: the offset, little-endian, in the
    /// first 8 of the 12 bytes. Within a segment's data key, no two records share an offset.
    static func nonce(_ offset: Int) -> ChaChaPoly.Nonce {
        var bytes: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: UInt64(offset).littleEndian, toByteOffset: 0, as: UInt64.self)
            // 12 bytes always make a nonce.
            return try! ChaChaPoly.Nonce(data: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(raw)[..<12]))
        }
    }

    /// The associated data, the frame header without its CRC (magic, length, type, sequence
    /// number: 17 bytes), handed to `body` from the stack.
    static func withAssociatedData<T>(length: Int, type: UInt8, sequence: UInt64, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        var bytes: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return try withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: Frame.magic.littleEndian, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt32(length).littleEndian, toByteOffset: 4, as: UInt32.self)
            raw.storeBytes(of: type, toByteOffset: 8, as: UInt8.self)
            raw.storeBytes(of: sequence.littleEndian, toByteOffset: 9, as: UInt64.self)
            return try body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(raw)[..<17]))
        }
    }

    /// Appends the frame of `payload`, sealed, to `out`; `offset` is where the frame starts in
    /// the segment. The sealed box is the one copy of the payload besides the frame itself.
    func encode(type: UInt8, sequence: UInt64, payload: [UInt8], offset: Int, into out: inout [UInt8]) throws {
        let length = payload.count + Self.tagSize
        try Self.withAssociatedData(length: length, type: type, sequence: sequence) { aad in
            let box = try ChaChaPoly.seal(payload, using: key, nonce: Self.nonce(offset), authenticating: aad)
            try box.combined.withUnsafeBytes { combined in
                // nonce 12 bytes, then the ciphertext and the tag: what the frame stores.
                let sealed = UnsafeRawBufferPointer(rebasing: combined[12...])
                guard sealed.count == length else { throw CryptoKitError.incorrectParameterSize }
                let crc = CRC32C.update(CRC32C.update(0, UnsafeRawBufferPointer(rebasing: aad[8...])), sealed)
                out.append(contentsOf: aad[0..<8])
                withUnsafeBytes(of: crc.littleEndian) { out.append(contentsOf: $0) }
                out.append(contentsOf: aad[8...])
                out.append(contentsOf: sealed)
            }
        }
    }

    /// The payload of a frame whose CRC checked, or nil when it does not authenticate (changed,
    /// moved to another offset or segment, or another frame's header).
    func open(type: UInt8, sequence: UInt64, sealed: UnsafeRawBufferPointer, offset: Int) -> [UInt8]? {
        guard sealed.count >= Self.tagSize else { return nil }
        let split = sealed.count - Self.tagSize
        return Self.withAssociatedData(length: sealed.count, type: type, sequence: sequence) { aad in
            guard let box = try? ChaChaPoly.SealedBox(
                nonce: Self.nonce(offset),
                ciphertext: UnsafeRawBufferPointer(rebasing: sealed[..<split]),
                tag: UnsafeRawBufferPointer(rebasing: sealed[split...])),
                  let plain = try? ChaChaPoly.open(box, using: key, authenticating: aad) else { return nil }
            return Array(plain)
        }
    }
}

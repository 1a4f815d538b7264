// Sealing and opening the records of an encrypted segment (doc/journal-format.md, "Encryption"):
// ChaCha20-Poly1305 under the segment's data key, the nonce from the record's offset in the
// segment, the frame's header (magic, length, type, sequence number) as associated data. The
// frame keeps its CRC32C, computed over what is stored, for torn writes.
//
// BoringSSL's AEAD on the journal's own buffers, through the C calls BoringAEAD declares: a
// record is sealed straight into the write buffer and opened straight into its payload, with one
// context per data key. Those declarations are checked against swift-crypto's own header by a
// test (BoringAEADHeaderTests), swift-crypto is pinned to one version, and the bytes are checked
// against swift-crypto's public `ChaChaPoly` (RecordCipherTests). `ChaChaPoly` itself, which
// allocates a sealed box, a context and its result for every record, missed the opening goal
// (doc/benchmarks.md).

import BoringAEAD
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
    /// BoringSSL's context for `key`, shared by the copies of this cipher.
    private let context: AEADContext

    static let tagSize = 16
    static let nonceSize = 12

    init(key: SymmetricKey, protection: SegmentProtection) {
        self.key = key
        self.protection = protection
        context = AEADContext(key: key)
    }

    /// The nonce of the record whose frame starts at `offset`: the offset, little-endian, in the
    /// first 8 of the 12 bytes. Within a segment's data key, no two records share an offset.
    static func withNonce<T>(_ offset: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        var bytes: (UInt64, UInt64) = (UInt64(offset).littleEndian, 0)
        return try withUnsafeBytes(of: &bytes) { try body(UnsafeRawBufferPointer(rebasing: $0[..<nonceSize])) }
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
    /// the segment.
    func encode(type: UInt8, sequence: UInt64, payload: [UInt8], offset: Int, into out: inout [UInt8]) throws {
        let length = payload.count + Self.tagSize
        let start = out.count
        try Self.withAssociatedData(length: length, type: type, sequence: sequence) { aad in
            // The header with a CRC of zero for now, then room for the ciphertext and the tag.
            out.append(contentsOf: aad[0..<8])
            out.append(contentsOf: repeatElement(0, count: 4))
            out.append(contentsOf: aad[8...])
            out.append(contentsOf: repeatElement(0, count: length))
            try out.withUnsafeMutableBytes { frame in
                let sealed = UnsafeMutableRawBufferPointer(rebasing: frame[(start + Frame.headerSize)...])
                try payload.withUnsafeBytes { try seal($0, nonce: offset, aad: aad, into: sealed) }
                let crc = CRC32C.update(0, UnsafeRawBufferPointer(rebasing: frame[(start + 12)...]))
                frame.storeBytes(of: crc.littleEndian, toByteOffset: start + 8, as: UInt32.self)
            }
        }
    }

    /// The payload of a frame whose CRC checked, or nil when it does not authenticate (changed,
    /// moved to another offset or segment, or another frame's header).
    func open(type: UInt8, sequence: UInt64, sealed: UnsafeRawBufferPointer, offset: Int) -> [UInt8]? {
        guard sealed.count >= Self.tagSize, sealed.baseAddress != nil else { return nil }
        return Self.withAssociatedData(length: sealed.count, type: type, sequence: sequence) { aad in
            open(sealed, nonce: offset, aad: aad)
        }
    }

    /// Writes the ciphertext of `plain` and its tag to `sealed` (16 bytes longer than `plain`).
    private func seal(_ plain: UnsafeRawBufferPointer, nonce offset: Int, aad: UnsafeRawBufferPointer, into sealed: UnsafeMutableRawBufferPointer) throws {
        try sealWithBoringSSL(plain, nonce: offset, aad: aad, into: sealed, context: context)
    }

    /// The plaintext of `sealed` (ciphertext and tag), or nil when it does not authenticate.
    private func open(_ sealed: UnsafeRawBufferPointer, nonce offset: Int, aad: UnsafeRawBufferPointer) -> [UInt8]? {
        openWithBoringSSL(sealed, nonce: offset, aad: aad, context: context)
    }

    private func sealWithBoringSSL(_ plain: UnsafeRawBufferPointer, nonce offset: Int, aad: UnsafeRawBufferPointer, into sealed: UnsafeMutableRawBufferPointer, context: AEADContext) throws {
        let count = plain.count
        var tagLength = 0
        // An empty payload still needs a readable address.
        var empty: UInt8 = 0
        let ok = withUnsafeMutablePointer(to: &empty) { spare in
            Self.withNonce(offset) { nonce in
                CCryptoBoringSSL_EVP_AEAD_CTX_seal_scatter(
                    context.pointer, count == 0 ? spare : sealed.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    (sealed.baseAddress! + count).assumingMemoryBound(to: UInt8.self), &tagLength, Self.tagSize,
                    nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), Self.nonceSize,
                    count == 0 ? UnsafePointer(spare) : plain.baseAddress!.assumingMemoryBound(to: UInt8.self), count, nil, 0,
                    aad.baseAddress!.assumingMemoryBound(to: UInt8.self), aad.count)
            }
        }
        guard ok == 1, tagLength == Self.tagSize else {
            CCryptoBoringSSL_ERR_clear_error()
            throw CryptoKitError.incorrectParameterSize
        }
    }

    private func openWithBoringSSL(_ sealed: UnsafeRawBufferPointer, nonce offset: Int, aad: UnsafeRawBufferPointer, context: AEADContext) -> [UInt8]? {
        let count = sealed.count - Self.tagSize
        let stored = sealed.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var opened = false
        var empty: UInt8 = 0
        let plain = withUnsafeMutablePointer(to: &empty) { spare in
            [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                opened = Self.withNonce(offset) { nonce in
                    CCryptoBoringSSL_EVP_AEAD_CTX_open_gather(
                        context.pointer, count == 0 ? spare : buffer.baseAddress!, nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), Self.nonceSize,
                        count == 0 ? UnsafePointer(spare) : stored, count, stored + count, Self.tagSize,
                        aad.baseAddress!.assumingMemoryBound(to: UInt8.self), aad.count)
                } == 1
                initialized = opened ? count : 0
            }
        }
        guard opened else {
            CCryptoBoringSSL_ERR_clear_error()
            return nil
        }
        return plain
    }
}

/// BoringSSL's ChaCha20-Poly1305 context for one data key, freed with its last cipher. Sealing
/// and opening only read it, so it is shared between threads.
private final class AEADContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(key: SymmetricKey) {
        let made = key.withUnsafeBytes { raw in
            CCryptoBoringSSL_EVP_AEAD_CTX_new(CCryptoBoringSSL_EVP_aead_chacha20_poly1305(), raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count, RecordCipher.tagSize)
        }
        // A 32-byte key always makes a context (`SegmentHeader.dataKey` derives 32 bytes).
        pointer = made!
    }

    deinit { CCryptoBoringSSL_EVP_AEAD_CTX_free(pointer) }
}

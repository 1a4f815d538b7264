// The header of an encrypted segment (doc/journal-format.md, "Encryption"): 48 bytes at the start
// of the file, with the salt its data key is derived from and the id of the master key it was
// written under. A plain segment has no header: its first bytes are a record frame.

import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the start of a segment file says about how its records are stored.
enum SegmentKind: Equatable {
    /// Nothing at all, or the beginning of a header cut short by a crash: holds no record.
    case empty
    /// Records in the clear (written without a key).
    case plain
    /// An encrypted segment: a valid header with this salt and key id.
    case encrypted(salt: [UInt8], keyID: [UInt8])
    /// The header's magic, but the rest does not check: the header is damaged.
    case damagedHeader
}

/// How a segment's records are protected, for `status`: in the clear, under the current key, or
/// under one of the old keys (`encryptionOldKeyFiles`) that compaction will rewrite.
public enum SegmentProtection: String, Sendable, Hashable {
    case plain, currentKey, oldKey
}

enum SegmentHeader {
    static let magic: [UInt8] = Array("SVE1".utf8)
    static let version: UInt8 = 1
    /// ChaCha20-Poly1305, data key by HKDF-SHA256.
    static let cipher: UInt8 = 1
    static let size = 48
    static let saltSize = 16

    /// A header with a fresh random salt for a segment under `key`.
    static func make(key: JournalKey) -> (bytes: [UInt8], salt: [UInt8]) {
        var rng = SystemRandomNumberGenerator()
        let salt = (0..<saltSize).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
        var bytes = magic + [version, cipher, 0, 0] + salt + key.id + [0, 0, 0, 0]
        let crc = bytes.withUnsafeBytes { CRC32C.update(0, $0) }
        withUnsafeBytes(of: crc.littleEndian) { bytes.append(contentsOf: $0) }
        return (bytes, salt)
    }

    /// What the first bytes of a segment say (`bytes` is its first `size` bytes or fewer, when the
    /// file is shorter).
    static func classify(_ bytes: ArraySlice<UInt8>) -> SegmentKind {
        let prefix = Array(bytes.prefix(size))
        if prefix.isEmpty { return .empty }
        let head = Array(prefix.prefix(magic.count))
        guard head == Array(magic.prefix(head.count)) else { return .plain }
        // A crash while the header was written leaves a part of it: nothing was written after.
        guard prefix.count == size else { return .empty }
        let crc = UInt32(prefix[44]) | UInt32(prefix[45]) << 8 | UInt32(prefix[46]) << 16 | UInt32(prefix[47]) << 24
        let computed = prefix[..<44].withUnsafeBytes { CRC32C.update(0, $0) }
        guard crc == computed, prefix[4] == version, prefix[5] == cipher else { return .damagedHeader }
        return .encrypted(salt: Array(prefix[8..<24]), keyID: Array(prefix[24..<40]))
    }

    /// The data key of segment `name` written under `key` with `salt`: HKDF-SHA256 of the master
    /// key, salted with the segment's salt, its info naming the segment.
    static func dataKey(master key: JournalKey, salt: [UInt8], segment name: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key.key, salt: salt, info: Array("surveyd segment v1 \(name)".utf8), outputByteCount: 32)
    }
}

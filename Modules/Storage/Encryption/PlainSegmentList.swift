// The segments in the clear a keyed journal accepts (doc/journal-format.md, "Encryption",
// "Migration"): the first opening with a key lists the plain segments it found, with their size and
// SHA-256, in `plain-segments`, authenticated with HMAC-SHA256 under a key derived from the master
// key. Every later opening reads only the plain segments listed there, unchanged; any other plain
// segment (one added to the directory, or a listed one changed) is set aside as
// `<segment>.unlisted` and logged, never replayed.

import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct PlainSegmentList: Equatable {
    struct Entry: Equatable {
        var name: String
        var size: Int
        var digest: [UInt8]
    }

    var entries: [Entry]

    static let fileName = "plain-segments"
    static let magic = Array("SVP1".utf8)
    static let macSize = 32

    /// The key the list is authenticated with: HKDF-SHA256 of the master key, info `surveyd plain segments v1`.
    static func macKey(_ key: JournalKey) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key.key, info: Array("surveyd plain segments v1".utf8), outputByteCount: 32)
    }

    /// The file: magic, the key id (16), the entry count (4, little-endian), each entry (name length
    /// (2), name (UTF-8), size (8), SHA-256 (32)), then HMAC-SHA256 of everything before it.
    func encoded(under key: JournalKey) -> [UInt8] {
        var bytes = Self.magic + key.id
        Self.append(UInt32(entries.count), 4, to: &bytes)
        for entry in entries {
            let name = Array(entry.name.utf8)
            Self.append(UInt32(name.count), 2, to: &bytes)
            bytes += name
            Self.append(UInt64(entry.size), 8, to: &bytes)
            bytes += entry.digest
        }
        bytes += Array(HMAC<SHA256>.authenticationCode(for: bytes, using: Self.macKey(key)))
        return bytes
    }

    /// The list in `bytes`, when it is whole and authenticates under the key it names (one of
    /// `keys`); nil otherwise. `under` is that key.
    static func decode(_ bytes: [UInt8], keys: JournalKeys) -> (list: PlainSegmentList, under: JournalKey)? {
        guard bytes.count >= magic.count + 16 + 4 + macSize, Array(bytes.prefix(magic.count)) == magic else { return nil }
        let body = Array(bytes.dropLast(macSize))
        guard let key = keys.key(id: Array(bytes[magic.count ..< magic.count + 16])),
              HMAC<SHA256>.isValidAuthenticationCode(Array(bytes.suffix(macSize)), authenticating: body, using: macKey(key)) else { return nil }
        var cursor = magic.count + 16
        func read(_ count: Int) -> UInt64? {
            guard cursor + count <= body.count else { return nil }
            defer { cursor += count }
            return body[cursor ..< cursor + count].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        guard let count = read(4) else { return nil }
        var entries: [Entry] = []
        for _ in 0 ..< count {
            guard let length = read(2).map(Int.init), cursor + length <= body.count else { return nil }
            let name = String(decoding: body[cursor ..< cursor + length], as: UTF8.self)
            cursor += length
            guard let size = read(8), cursor + 32 <= body.count else { return nil }
            entries.append(Entry(name: name, size: Int(size), digest: Array(body[cursor ..< cursor + 32])))
            cursor += 32
        }
        guard cursor == body.count else { return nil }
        return (PlainSegmentList(entries: entries), key)
    }

    private static func append(_ value: some FixedWidthInteger, _ count: Int, to bytes: inout [UInt8]) {
        for index in 0 ..< count { bytes.append(UInt8(truncatingIfNeeded: UInt64(value) >> (8 * UInt64(index)))) }
    }
}

// The journal's encryption keys: a 32-byte master key read from a file (raw or base64), its key
// id (what a segment header records) and fingerprint (what status shows), and the set of keys a
// journal writes and reads with. The key itself is never logged, shown or written anywhere.

#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Foundation

/// A 32-byte master key for the journal's encryption at rest.
public struct JournalKey: Sendable {
    /// The master key; segment keys are derived from it (`SegmentHeader`).
    let key: SymmetricKey
    /// HKDF-SHA256 of the key (info `surveyd key id v1`), 16 bytes: recorded in every segment
    /// header, so that a segment's key is recognised without trying to decrypt anything.
    public let id: [UInt8]
    /// Where the key was read from, for messages; nil for a key made in memory.
    public let source: String?

    /// The size of a key, in bytes.
    public static let size = 32

    /// A key from its 32 bytes.
    public init(bytes: [UInt8], source: String? = nil) throws {
        guard bytes.count == Self.size else {
            throw StorageError(code: .keyRefused, message: "An encryption key is \(Self.size) bytes, raw or base64; \(source ?? "this one") holds \(bytes.count).")
        }
        key = SymmetricKey(data: bytes)
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Array("surveyd key id v1".utf8), outputByteCount: 16)
        id = derived.withUnsafeBytes { Array($0) }
        self.source = source
    }

    /// The first 8 hex digits of the key id: tells keys apart, reveals nothing of the key.
    public var fingerprint: String { Self.fingerprint(of: id) }

    static func fingerprint(of id: [UInt8]) -> String {
        id.prefix(4).map { String(format: "%02x", $0) }.joined()
    }

    /// Reads a key from `path`: exactly 32 bytes (`openssl rand 32`), or their base64 (with
    /// surrounding white space allowed). Throws `StorageError` `.keyRefused` naming the file and
    /// what is wrong: missing, unreadable, not a regular file, open to group or others, or not
    /// 32 bytes.
    public static func load(from path: String, operations: JournalFileOperations = JournalFileOperations()) throws -> JournalKey {
        let io = FileIO(operations)
        guard let st = io.stat(path) else {
            throw StorageError(code: .keyRefused, message: "The encryption key file \(path) does not exist; make one (`openssl rand 32 > \(path); chmod 600 \(path)`) or give the right path.")
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw StorageError(code: .keyRefused, message: "The encryption key file \(path) is not a regular file; give the file that holds the key.")
        }
        guard st.st_mode & 0o077 == 0 else {
            throw StorageError(code: .keyRefused, message: "The encryption key file \(path) is open to group or others (mode \(String(st.st_mode & 0o777, radix: 8))); make it owner-only: chmod 600 \(path).")
        }
        var bytes: [UInt8]
        do {
            bytes = try io.readAll(path)
        } catch {
            throw StorageError(code: .keyRefused, message: "The encryption key file \(path) cannot be read (\(error)); give the daemon's user read access to it, owner-only.", cause: error as? SystemCallError)
        }
        // Every copy of the key's bytes made here is zeroed once the key holds its own.
        defer { KeyBytes.wipe(&bytes) }
        if bytes.count == size { return try JournalKey(bytes: bytes, source: path) }
        var trimmed = KeyBytes.trimmingWhiteSpace(bytes)
        defer { KeyBytes.wipe(&trimmed) }
        var encoded = Data(trimmed)
        defer { KeyBytes.wipe(&encoded) }
        if var decoded = Data(base64Encoded: encoded), decoded.count == size {
            defer { KeyBytes.wipe(&decoded) }
            var raw = [UInt8](decoded)
            defer { KeyBytes.wipe(&raw) }
            return try JournalKey(bytes: raw, source: path)
        }
        throw StorageError(code: .keyRefused, message: "The encryption key file \(path) holds \(bytes.count) bytes that are neither a \(size)-byte key nor its base64; make one with `openssl rand 32 > \(path)`.")
    }
}

/// The key's bytes while they are read: zeroed with `explicit_bzero` (which the compiler does not
/// drop as a dead store) once the `SymmetricKey` holds its own copy.
enum KeyBytes {
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
    }

    static func wipe(_ data: inout Data) {
        data.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } }
    }

    /// `bytes` without the ASCII white space around it.
    static func trimmingWhiteSpace(_ bytes: [UInt8]) -> [UInt8] {
        let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C]
        guard let first = bytes.firstIndex(where: { !space.contains($0) }), let last = bytes.lastIndex(where: { !space.contains($0) }) else { return [] }
        return Array(bytes[first ... last])
    }
}

/// The keys a journal encrypts with (`current`) and can still read (`current` and `old`).
public struct JournalKeys: Sendable {
    /// New segments are written under this key.
    public var current: JournalKey
    /// Earlier keys: segments written under them are read, and compaction rewrites them under
    /// `current`.
    public var old: [JournalKey]

    public init(current: JournalKey, old: [JournalKey] = []) {
        self.current = current
        self.old = old.filter { $0.id != current.id }
    }

    /// The key whose id is `id`, current or old.
    func key(id: [UInt8]) -> JournalKey? {
        if id == current.id { return current }
        return old.first { $0.id == id }
    }
}

// The definition cache: the questionnaire bytes last fetched per (typeID, language), stored by
// content hash so that a queued submission or an open session can still find the exact definition
// it was answered against after the server has published a newer one.
//
// Layout in its directory:
//   by-hash/<hash>.json     the response bytes, written atomically (temporary file, fsync, rename, directory fsync)
//   current/<typeID>.<lang> the hash of the newest definition for that pair, written the same way

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A cached definition: its bytes and content hash.
public struct CachedDefinition: Sendable, Hashable {
    public var hash: String
    public var bytes: [UInt8]

    public init(hash: String, bytes: [UInt8]) {
        self.hash = hash
        self.bytes = bytes
    }
}

/// Questionnaire bytes per (typeID, language), by content hash. Safe to share between tasks; the
/// file operations are short and synchronous, so call it off event-loop threads.
public struct DefinitionCache: Sendable {
    public let directory: String
    /// Serialises `store` and `prune`, so that a prune never removes a definition whose pointer
    /// is about to name it. Shared by copies of this value.
    private let writing = WriteGate()

    private final class WriteGate: Sendable {
        let mutex = Mutex(())
    }

    /// Opens (creating if needed) the cache in `directory`: its directories are 0700 (each new
    /// one made durable by an fsync of its parent) and its files 0600, whoever loosened them.
    public init(directory: String) throws {
        self.directory = directory
        for path in [directory, directory + "/by-hash", directory + "/current"] {
            try PrivateDirectory.create(path)
            if path != directory { Journal.tightenModes(path) }
        }
    }

    /// The content hash of definition bytes: 128 bits (two FNV-1a 64 streams) in hex, with the CRC32C.
    public static func hash(_ bytes: [UInt8]) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x84222325_cbf29ce4
        for byte in bytes {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte ^ 0x5a)) &* 0x0000_0100_0000_01b3
        }
        let crc = bytes.withUnsafeBytes { CRC32C.update(0, $0) }
        func hex<T: FixedWidthInteger>(_ v: T) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: MemoryLayout<T>.size * 2 - s.count) + s
        }
        return hex(a) + hex(b) + hex(crc)
    }

    /// Stores `bytes` as the newest definition of (typeID, language) and returns its hash.
    @discardableResult
    public func store(typeID: String, language: String, bytes: [UInt8]) throws -> String {
        try writing.mutex.withLock { _ in try storeLocked(typeID: typeID, language: language, bytes: bytes) }
    }

    private func storeLocked(typeID: String, language: String, bytes: [UInt8]) throws -> String {
        let name = try Self.pairName(typeID: typeID, language: language)
        let hash = Self.hash(bytes)
        let path = directory + "/by-hash/" + hash + ".json"
        if (try? Self.readFile(path)) != bytes {
            try Self.writeAtomically(bytes, to: path, directory: directory + "/by-hash")
        }
        // Usually the server sends what is cached already: then nothing is written or fsync'd.
        let pointer = directory + "/current/" + name
        if (try? Self.readFile(pointer)) != Array(hash.utf8) {
            try Self.writeAtomically(Array(hash.utf8), to: pointer, directory: directory + "/current")
        }
        return hash
    }

    /// The newest definition stored for (typeID, language); nil when there is none.
    public func current(typeID: String, language: String) throws -> CachedDefinition? {
        let name = try Self.pairName(typeID: typeID, language: language)
        guard let pointer = try? Self.readFile(directory + "/current/" + name) else { return nil }
        return try definition(hash: String(decoding: pointer, as: UTF8.self))
    }

    /// The definition with this hash; nil when it is not cached. Throws when the stored bytes no
    /// longer match their hash.
    public func definition(hash: String) throws -> CachedDefinition? {
        guard !hash.isEmpty, hash.allSatisfy(\.isHexDigit) else { return nil }
        guard let bytes = try? Self.readFile(directory + "/by-hash/" + hash + ".json") else { return nil }
        guard Self.hash(bytes) == hash else {
            throw StorageError(code: .undecodableRecord, message: "The cached definition \(hash) in \(directory) is damaged (its content does not match its hash); delete it and connect once to fetch it again.")
        }
        return CachedDefinition(hash: hash, bytes: bytes)
    }

    /// Deletes stored definitions that are neither the newest of some (typeID, language) nor in
    /// `pinned` (the hashes that queued submissions and open sessions refer to). Returns the hashes removed.
    @discardableResult
    public func prune(keeping pinned: Set<String>) throws -> [String] {
        try writing.mutex.withLock { _ in try pruneLocked(keeping: pinned) }
    }

    private func pruneLocked(keeping pinned: Set<String>) throws -> [String] {
        var keep = pinned
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory + "/current")) ?? [] where !name.contains(".tmp") {
            if let pointer = try? Self.readFile(directory + "/current/" + name) { keep.insert(String(decoding: pointer, as: UTF8.self)) }
        }
        var removed: [String] = []
        for file in (try? FileManager.default.contentsOfDirectory(atPath: directory + "/by-hash")) ?? [] where file.hasSuffix(".json") {
            let hash = String(file.dropLast(5))
            if !keep.contains(hash), unlink(directory + "/by-hash/" + file) == 0 { removed.append(hash) }
        }
        if !removed.isEmpty { try Journal.fsyncDirectory(directory + "/by-hash") }
        return removed.sorted()
    }

    static func pairName(typeID: String, language: String) throws -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
        for (what, value) in [("typeID", typeID), ("language", language)] where value.isEmpty || value.unicodeScalars.contains(where: { !allowed.contains($0) }) {
            throw StorageError(code: .notFound, message: "The \(what) \"\(value)\" cannot name a cached definition; use letters, digits, - and _ only.")
        }
        return typeID + "." + language
    }

    /// Reads a file of the cache, setting it to 0600 first.
    static func readFile(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw StorageError(code: .notFound, message: "Cannot read \(path).", cause: SystemCallError(call: "open", errno: errno))
        }
        defer { close(fd) }
        fchmod(fd, 0o600)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw StorageError(code: .ioFailed, message: "Cannot read \(path); check the disk.", cause: SystemCallError(call: "read", errno: errno)) }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<n])
        }
    }

    /// Writes a temporary file, fsyncs it, renames it over `path` and fsyncs the directory.
    /// Numbers temporary files, so that concurrent writers of one file never share one.
    private static let temporaryCounter = Atomic<Int>(0)

    static func writeAtomically(_ bytes: [UInt8], to path: String, directory: String) throws {
        let temporary = path + ".tmp-\(getpid())-\(temporaryCounter.add(1, ordering: .relaxed).newValue)"
        let fd = try Journal.createFile(temporary, flags: O_WRONLY | O_CREAT | O_TRUNC)
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            written += n
        }
        let synced = fsync(fd)
        Glibc.close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw StorageError(code: .ioFailed, message: "Cannot write \(path); check free space and permissions.", cause: SystemCallError(call: "write", errno: code))
        }
        try Journal.fsyncDirectory(directory)
    }
}

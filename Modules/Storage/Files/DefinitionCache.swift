// The definition cache: the questionnaire bytes last fetched per (typeID, language), stored by
// content hash so that a queued submission or an open session can still find the exact definition
// it was answered against after the server has published a newer one.
//
// Layout in its directory:
//   by-hash/<hash>.json     the response bytes, written atomically (temporary file, fsync, rename, directory fsync)
//   current/<typeID>.<lang> the hash of the newest definition for that pair, written the same way
//
// Every system call goes through `FileIO` and the `JournalFileOperations` seam, as the journal's.

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
    private let io: FileIO
    /// Serialises `store` and `prune`, so that a prune never removes a definition whose pointer
    /// is about to name it. Shared by copies of this value.
    private let writing = WriteGate()

    private final class WriteGate: Sendable {
        let mutex = Mutex(())
    }

    /// Opens (creating if needed) the cache in `directory`: its directories are 0700 (each new
    /// one made durable by an fsync of its parent) and its files 0600, whoever loosened them.
    /// `operations` are the system calls it makes (tests inject failures there).
    public init(directory: String, operations: JournalFileOperations = JournalFileOperations()) throws {
        self.directory = directory
        io = FileIO(operations)
        for path in [directory, directory + "/by-hash", directory + "/current"] {
            try PrivateDirectory.create(path, operations: operations)
            if path != directory { try Journal.tightenModes(path, io: io) }
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
        if (try? readFile(path)) != bytes {
            try writeAtomically(bytes, to: path, directory: directory + "/by-hash")
        }
        // Usually the server sends what is cached already: then nothing is written or fsync'd.
        let pointer = directory + "/current/" + name
        if (try? readFile(pointer)) != Array(hash.utf8) {
            try writeAtomically(Array(hash.utf8), to: pointer, directory: directory + "/current")
        }
        return hash
    }

    /// The newest definition stored for (typeID, language); nil when there is none.
    public func current(typeID: String, language: String) throws -> CachedDefinition? {
        let name = try Self.pairName(typeID: typeID, language: language)
        guard let pointer = try? readFile(directory + "/current/" + name) else { return nil }
        return try definition(hash: String(decoding: pointer, as: UTF8.self))
    }

    /// The definition with this hash; nil when it is not cached. Throws when the stored bytes no
    /// longer match their hash.
    public func definition(hash: String) throws -> CachedDefinition? {
        guard !hash.isEmpty, hash.allSatisfy(\.isHexDigit) else { return nil }
        guard let bytes = try? readFile(directory + "/by-hash/" + hash + ".json") else { return nil }
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
        // A pointer that cannot be listed or read would keep nothing: then nothing is removed.
        for name in try list(directory + "/current") where !name.contains(".tmp") {
            let pointer = try readFile(directory + "/current/" + name)
            keep.insert(String(decoding: pointer, as: UTF8.self))
        }
        var removed: [String] = []
        var failure: (any Error)?
        for file in try list(directory + "/by-hash") where file.hasSuffix(".json") {
            let hash = String(file.dropLast(5))
            guard !keep.contains(hash) else { continue }
            do {
                if try io.unlinkIfPresent(directory + "/by-hash/" + file) { removed.append(hash) }
            } catch {
                failure = failure ?? StorageError(code: .ioFailed, message: "Cannot remove the unused definition \(directory)/by-hash/\(file); check permissions.", cause: error as? SystemCallError)
            }
        }
        // What was removed is made durable even when another removal failed.
        if !removed.isEmpty { try io.fsyncDirectory(directory + "/by-hash") }
        if let failure { throw failure }
        return removed.sorted()
    }

    static func pairName(typeID: String, language: String) throws -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_"))
        for (what, value) in [("typeID", typeID), ("language", language)] where value.isEmpty || value.unicodeScalars.contains(where: { !allowed.contains($0) }) {
            throw StorageError(code: .notFound, message: "The \(what) \"\(value)\" cannot name a cached definition; use letters, digits, - and _ only.")
        }
        return typeID + "." + language
    }

    private func list(_ path: String) throws -> [String] {
        do {
            return try io.list(path)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot list \(path); check its permissions.", cause: error as? SystemCallError)
        }
    }

    /// Reads a file of the cache, setting it to 0600 first.
    func readFile(_ path: String) throws -> [UInt8] {
        do {
            return try io.readAll(path, mode: 0o600)
        } catch let error as SystemCallError where error.call == "open" {
            throw StorageError(code: .notFound, message: "Cannot read \(path).", cause: error)
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot read \(path); check the disk and its owner.", cause: error as? SystemCallError)
        }
    }

    /// Numbers temporary files, so that concurrent writers of one file never share one.
    private static let temporaryCounter = Atomic<Int>(0)

    /// Writes a temporary file, fsyncs it, renames it over `path` and fsyncs the directory.
    func writeAtomically(_ bytes: [UInt8], to path: String, directory: String) throws {
        let temporary = path + ".tmp-\(getpid())-\(Self.temporaryCounter.add(1, ordering: .relaxed).newValue)"
        do {
            try io.replaceFile(bytes, at: path, temporary: temporary, directory: directory)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(code: .ioFailed, message: "Cannot write \(path); check free space and permissions.", cause: error as? SystemCallError)
        }
    }
}

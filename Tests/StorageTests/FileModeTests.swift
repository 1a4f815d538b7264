#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Storage
import SurveyTesting
import Synchronization
import Testing

/// Every file and directory the storage opens or creates is owner-only (0600/0700), whatever
/// the umask, and files loosened by hand are tightened again when they are opened. Serialized:
/// the umask is the process's.
@Suite(.serialized, .timeLimit(.minutes(5))) struct FileModeTests {
    let logger = Logger(label: "file-modes")

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
    }

    /// Every entry under `root` (recursively) with its mode, and `root` itself.
    func modes(under root: String) throws -> [String: Int] {
        var out = [root: try mode(root)]
        for name in try FileManager.default.subpathsOfDirectory(atPath: root) { out[root + "/" + name] = try mode(root + "/" + name) }
        return out
    }

    func expectOwnerOnly(under root: String) throws {
        for (path, m) in try modes(under: root) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            #expect(m == (isDirectory.boolValue ? 0o700 : 0o600), "\(path) has mode \(String(m, radix: 8))")
        }
    }

    func loosen(under root: String) throws {
        for path in try modes(under: root).keys {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            chmod(path, isDirectory.boolValue ? 0o755 : 0o644)
        }
    }

    @Test func journalFilesAreOwnerOnlyUnderUmaskZero() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/journal"
        let old = umask(0)
        defer { umask(old) }
        let journal = try Journal(directory: path, logger: logger)
        _ = try await journal.append(type: 1, payload: [1, 2, 3])
        await journal.close()
        try expectOwnerOnly(under: path)
    }

    @Test func loosenedJournalFilesAreTightenedWhenTheJournalOpens() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/journal"
        var options = JournalOptions()
        options.segmentSize = 256
        let journal = try Journal(directory: path, options: options, logger: logger)
        for i in 0..<20 { _ = try await journal.append(type: 1, payload: [UInt8](repeating: UInt8(i), count: 40)) }
        await journal.close()
        // A torn tail, so that recovery keeps a quarantined copy.
        let last = try #require(try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".log") }.sorted().last)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path + "/" + last))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 2, 3]))
        try handle.close()
        try await Journal(directory: path, options: options, logger: logger).close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).contains { $0.contains(".torn-") })
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".log") }.count > 2)
        try loosen(under: path)
        let reopened = try Journal(directory: path, options: options, logger: logger)
        try expectOwnerOnly(under: path)
        _ = try await reopened.append(type: 1, payload: [9])
        await reopened.close()
        try expectOwnerOnly(under: path)
    }

    @Test func definitionCacheIsOwnerOnlyUnderUmaskZeroAndTightensLoosenedFiles() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/definitions"
        do {
            let old = umask(0)
            defer { umask(old) }
            let cache = try DefinitionCache(directory: path)
            try cache.store(typeID: "common", language: "en", bytes: Array("{\"a\":1}".utf8))
            try cache.store(typeID: "1", language: "ko", bytes: Array("{\"b\":2}".utf8))
            try expectOwnerOnly(under: path)
        }
        try loosen(under: path)
        let reopened = try DefinitionCache(directory: path)
        try expectOwnerOnly(under: path)
        // A file loosened while the cache is open is tightened when it is read.
        let hash = try #require(try reopened.current(typeID: "common", language: "en")?.hash)
        chmod(path + "/by-hash/\(hash).json", 0o644)
        chmod(path + "/current/common.en", 0o644)
        _ = try reopened.current(typeID: "common", language: "en")
        try expectOwnerOnly(under: path)
    }
}

/// A new directory is made durable by an fsync of its parent, as a new file is by one of its
/// directory.
@Suite(.timeLimit(.minutes(5))) struct NewDirectoryTests {
    /// File operations that record the path of every descriptor fsync'd.
    final class SyncedPaths: Sendable {
        let paths = Mutex<[String]>([])
        var operations: JournalFileOperations {
            JournalFileOperations(fsync: { [self] fd in
                let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? "?"
                paths.withLock { $0.append(path) }
                return Glibc.fsync(fd)
            })
        }
    }

    @Test func creatingDirectoriesFsyncsEachParent() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let synced = SyncedPaths()
        let root = URL(fileURLWithPath: dir.path).resolvingSymlinksInPath().path
        try PrivateDirectory.create(root + "/a/b/c", intermediates: true, operations: synced.operations)
        #expect(synced.paths.withLock { $0 } == [root, root + "/a", root + "/a/b"])
        // Existing: nothing created, nothing to sync; the mode is set all the same.
        chmod(root + "/a/b/c", 0o755)
        try PrivateDirectory.create(root + "/a/b/c", operations: synced.operations)
        #expect(synced.paths.withLock { $0.count } == 3)
        #expect((try FileManager.default.attributesOfItem(atPath: root + "/a/b/c")[.posixPermissions] as! NSNumber).intValue == 0o700)
        // Without intermediates, a missing parent is an error naming the directory.
        let error = #expect(throws: StorageError.self) { try PrivateDirectory.create(root + "/x/y") }
        #expect(error?.message.contains(root + "/x/y") == true)
    }

    @Test func aNewJournalDirectoryIsSyncedInItsParent() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let synced = SyncedPaths()
        let root = URL(fileURLWithPath: dir.path).resolvingSymlinksInPath().path
        var options = JournalOptions()
        options.fileOperations = synced.operations
        let journal = try Journal(directory: root + "/journal", options: options, logger: Logger(label: "t"))
        await journal.close()
        let paths = synced.paths.withLock { $0 }
        #expect(paths.first == root, "\(paths)")
        #expect(paths.contains(root + "/journal"), "the first segment is synced in the journal directory: \(paths)")
    }
}

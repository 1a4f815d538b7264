#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
@testable import Storage
import SurveyTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5))) struct DefinitionCacheTests {
    @Test func storesByHashAndKeepsPinnedOnes() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cache = try DefinitionCache(directory: dir.path + "/definitions")
        let v1 = Array(#"{"isSuccess":true,"result":{"v":1}}"#.utf8)
        let v2 = Array(#"{"isSuccess":true,"result":{"v":2}}"#.utf8)
        #expect(try cache.current(typeID: "common", language: "ko") == nil)
        let h1 = try cache.store(typeID: "common", language: "ko", bytes: v1)
        #expect(h1 == DefinitionCache.hash(v1) && h1.count == 40)
        #expect(try cache.current(typeID: "common", language: "ko") == CachedDefinition(hash: h1, bytes: v1))
        let h2 = try cache.store(typeID: "common", language: "ko", bytes: v2)
        #expect(h1 != h2)
        #expect(try cache.current(typeID: "common", language: "ko")?.hash == h2)
        #expect(try cache.definition(hash: h1)?.bytes == v1)
        // Reopening sees the same.
        let again = try DefinitionCache(directory: dir.path + "/definitions")
        #expect(try again.current(typeID: "common", language: "ko")?.bytes == v2)
        // Pruning keeps the newest and the pinned, removes the rest.
        #expect(try again.prune(keeping: [h1]).isEmpty)
        #expect(try again.prune(keeping: []) == [h1])
        #expect(try again.definition(hash: h1) == nil)
        #expect(try again.definition(hash: h2) != nil)
        #expect(try again.definition(hash: "../../etc/passwd") == nil)
        #expect(throws: StorageError.self) { try again.store(typeID: "../x", language: "ko", bytes: v1) }
    }

    /// Sessions starting at once store the same questionnaire from several threads.
    @Test func concurrentStoresOfOneDefinitionAllSucceed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cache = try DefinitionCache(directory: dir.path)
        let versions = (0..<3).map { Array(#"{"isSuccess":true,"result":{"v":\#($0)}}"#.utf8) }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            do { try cache.store(typeID: "common", language: i % 2 == 0 ? "ko" : "en", bytes: versions[i % 3]) } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let newest = try #require(try cache.current(typeID: "common", language: "ko"))
        #expect(versions.contains(newest.bytes))
        for sub in ["by-hash", "current"] {
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/" + sub).allSatisfy { !$0.contains(".tmp") }, "no temporary file left in \(sub)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/by-hash").count == 3)
    }

    @Test func aDamagedDefinitionIsReportedNotUsed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cache = try DefinitionCache(directory: dir.path)
        let hash = try cache.store(typeID: "1", language: "en", bytes: Array("{}".utf8))
        try Data("{x".utf8).write(to: dir.appending("by-hash/\(hash).json"))
        #expect(throws: StorageError.self) { try cache.current(typeID: "1", language: "en") }
    }
}

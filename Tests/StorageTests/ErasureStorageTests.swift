import Foundation
import Logging
@testable import Storage
import SurveyTesting
import Synchronization
import Testing

private let logger = Logger(label: "erasure-storage-tests")

/// What the queue and the journal tell erasure: since when delivered or dropped bodies wait in
/// the queue's files, and the kept copies of damaged bytes.
@Suite(.timeLimit(.minutes(5))) struct ErasureStorageTests {
    final class Dates: Sendable {
        let value = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func now() -> Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 += seconds } }
    }

    func metadata() -> SubmissionMetadata {
        SubmissionMetadata(key: UUID(), stage: "common", language: "en", definitionHash: "h", queuedAt: Date(timeIntervalSince1970: 1_700_000_000), session: UUID())
    }

    @Test func deliveredAndDroppedBodiesWaitFromTheirFirstSettlingUntilAPurge() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let dates = Dates()
        var options = SubmissionQueueOptions()
        options.now = { dates.now() }
        let start = dates.now()
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: options, logger: logger)
            let first = try await queue.enqueueNew(metadata(), body: Array(#"{"answers":{"name":"Kestrelbyte"}}"#.utf8))
            let second = try await queue.enqueueNew(metadata(), body: Array(#"{"answers":{"name":"Lapwingdusk"}}"#.utf8))
            let kept = try await queue.enqueueNew(metadata(), body: Array(#"{"answers":{"name":"Magpieroost"}}"#.utf8))
            #expect(await queue.erasableSince == nil, "nothing delivered yet")
            try await queue.markDelivered(first.id, response: nil)
            dates.advance(10)
            try await queue.markDead(second.id, reason: "HTTP 400", outcome: .rejected)
            _ = try await queue.drop(second.id)
            #expect(await queue.erasableSince == start, "from the first delivery")
            _ = try await queue.purge()
            #expect(await queue.erasableSince == nil)
            #expect(DiskSearch.find(["Kestrelbyte", "Lapwingdusk"], under: dir.path).isEmpty)
            #expect(await queue.pending(limit: 10).map(\.id) == [kept.id])
            try await queue.markDelivered(kept.id, response: nil)
            await queue.close()
        }
        // Opened again with the delivered body still in its file: it waits from the open.
        dates.advance(100)
        let queue = try SubmissionQueue(directory: dir.path, options: options, logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.erasableSince == dates.now())
        _ = try await queue.purge()
        #expect(await queue.erasableSince == nil)
        #expect(DiskSearch.find(["Magpieroost"], under: dir.path).isEmpty)
    }

    @Test func aPurgedQueueOpensWithNothingWaiting() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        do {
            let queue = try SubmissionQueue(directory: dir.path, logger: logger)
            let s = try await queue.enqueueNew(metadata(), body: Array("{}".utf8))
            try await queue.markDelivered(s.id, response: nil)
            _ = try await queue.purge()
            await queue.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.erasableSince == nil, "the purge's marker keeps the ordinal, not a body")
    }

    @Test func keptCopiesAreListedAndRemoved() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        do {
            let journal = try Journal(directory: dir.path, logger: logger)
            _ = try await journal.append(type: 1, payload: Array("Nightjarveil".utf8))
            await journal.close()
        }
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("segment-") })
        let handle = try #require(FileHandle(forWritingAtPath: dir.path + "/" + segment))
        handle.seekToEndOfFile()
        handle.write(Data("a torn Nightjarveil".utf8))
        try handle.close()
        let journal = try Journal(directory: dir.path, logger: logger)
        defer { journal.close(then: {}) }
        let copies = try journal.keptCopies()
        #expect(copies.count == 1 && copies[0].hasPrefix(segment + ".torn-"), "\(copies)")
        #expect(try journal.removeKeptCopies(copies + ["lock", segment]) == 1, "only kept copies are removed")
        #expect(try journal.keptCopies().isEmpty)
        #expect(try journal.segments().map(\.name) == [segment])
    }
}

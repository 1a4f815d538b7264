import Foundation
import Logging
@testable import Storage
import SurveyTesting
import Testing

private let logger = Logger(label: "queue-replay")

@Suite(.timeLimit(.minutes(5))) struct QueueReplayTests {
    /// Replay recognises the (stage, language, hash) of a record among the ones it met last; with
    /// more of them interleaved than it keeps, every submission still comes back with its own.
    @Test(arguments: [false, true])
    func everySubmissionKeepsItsStageLanguageAndHashAcrossAReopen(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var options = SubmissionQueueOptions()
        if encrypted { options.journal.encryption = Encryption.keys(2) }
        let kinds = SubmissionQueue.Replay.RecentMetas.capacity * 2 + 3
        var queued: [QueuedSubmission] = []
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: options, logger: logger)
            defer { queue.close(then: {}) }  // when the block throws
            for i in 0..<(kinds * 3) {
                // Cycles through more kinds than replay keeps, with a few repeated back to back.
                let kind = i % 5 == 4 ? (i - 1) % kinds : i % kinds
                let metadata = SubmissionMetadata(
                    key: UUID(), stage: "stage-\(kind % 7)", language: kind % 2 == 0 ? "ko" : "en", definitionHash: "hash-\(kind)",
                    queuedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)), session: nil)
                queued.append(try await queue.enqueueNew(metadata, body: Array("body \(i)".utf8)))
            }
            await queue.close()
        }
        let reopened = try SubmissionQueue(directory: dir.path, options: options, logger: logger)
        defer { reopened.close(then: {}) }
        #expect(await reopened.pending(limit: .max) == queued)
        #expect(await reopened.definitionHashes() == Set(queued.map(\.metadata.definitionHash)))
    }

    /// The key prefix table holds what was inserted (0 included, across its growth) and tells
    /// other prefixes apart.
    @Test func theKeyPrefixTableHoldsWhatWasInserted() {
        var random = SystemRandomNumberGenerator()
        let inserted = (0..<5000).map { _ in UInt32.random(in: .min ... .max, using: &random) } + [0, 1, .max]
        var table = SubmissionQueue.KeyPrefixes()
        for prefix in inserted { table.insert(prefix) }
        for prefix in inserted { table.insert(prefix) }  // again: nothing changes
        #expect(inserted.allSatisfy { table.contains($0) })
        let known = Set(inserted)
        let others = (0..<5000).map { _ in UInt32.random(in: .min ... .max, using: &random) }.filter { !known.contains($0) }
        #expect(!others.contains { table.contains($0) })
        #expect(!SubmissionQueue.KeyPrefixes(minimumCapacity: 10).contains(0))
    }
}

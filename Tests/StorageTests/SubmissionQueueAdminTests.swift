import Foundation
import Logging
@testable import Storage
import SurveyTesting
import Testing

private let logger = Logger(label: "queue-admin-tests")

private func metadata(_ i: Int) -> SubmissionMetadata {
    SubmissionMetadata(key: UUID(), stage: "s\(i % 3)", language: "ko", definitionHash: "h1", queuedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)), session: UUID())
}

private func body(_ i: Int) -> [UInt8] { Array(#"{"answers":{"n":\#(i)}}"#.utf8) }

/// The operator's changes to the queue: dropping dead letters, importing exported submissions,
/// purging delivered bodies; each kept across a reopen.
@Suite(.timeLimit(.minutes(5))) struct SubmissionQueueAdminTests {
    @Test func aDroppedDeadLetterStaysDroppedAcrossReopenAndCompaction() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var options = SubmissionQueueOptions()
        options.journal.segmentSize = 4096
        let items = (0..<4).map(metadata)
        var q: [QueuedSubmission] = []
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: options, logger: logger)
            for i in 0..<4 { q.append(try await queue.enqueueNew(items[i], body: body(i))) }
            try await queue.markDead(q[0].id, reason: "HTTP 400", outcome: .rejected)
            try await queue.markDead(q[1].id, reason: "undecodable")
            // Only a dead letter can be dropped.
            #expect(try await queue.drop(q[2].id) == nil)
            #expect(try await queue.drop(SubmissionID(99)) == nil)
            let dropped = try #require(try await queue.drop(q[0].id))
            #expect(dropped.submission == q[0] && dropped.reason == "HTTP 400")
            #expect(try await queue.drop(q[0].id) == nil)
            #expect(try await queue.requeue(q[0].id) == nil)
            #expect(await queue.dead().map(\.submission) == [q[1]])
            #expect(await queue.state(of: q[0].metadata.key) == nil)
            #expect(await queue.counts().dead == 1)
            await queue.close()
        }
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: options, logger: logger)
            #expect(await queue.dead().map(\.submission) == [q[1]])
            #expect(await queue.pending(limit: 10) == [q[2], q[3]])
            #expect(await queue.state(of: q[0].metadata.key) == nil)
            #expect(await queue.submission(q[0].id) == nil)
            // Many more records, so that compaction removes the segment holding the drop.
            for i in 4..<80 {
                let s = try await queue.enqueueNew(metadata(i), body: body(i))
                try await queue.markDelivered(s.id, response: nil)
            }
            _ = try await queue.compact()
            await queue.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, options: options, logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.dead().map(\.submission) == [q[1]])
        #expect(await queue.pending(limit: 10) == [q[2], q[3]])
        #expect(Array(try await queue.body(of: q[2].id)) == body(2))
    }

    @Test func anImportIsQueuedOnceUnderItsKeyAndSurvivesReopen() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let imported = metadata(1)
        let id: SubmissionID
        do {
            let queue = try SubmissionQueue(directory: dir.path, logger: logger)
            let first = try await queue.enqueueNew(metadata(0), body: body(0))
            guard case .queued(let submission) = try await queue.importSubmission(imported, body: body(1)) else {
                Issue.record("the import was not queued")
                return
            }
            id = submission.id
            #expect(submission.id > first.id && submission.metadata.key == imported.key)
            // The same key again: nothing is written.
            #expect(try await queue.importSubmission(imported, body: body(2)) == .known(.pending))
            #expect(try await queue.importSubmission(SubmissionMetadata(key: first.metadata.key, stage: "x", language: "en", definitionHash: "h", queuedAt: Date()), body: body(3)) == .known(.pending))
            try await queue.markDelivered(first.id, response: "2")
            #expect(try await queue.importSubmission(first.metadata, body: body(0)) == .known(.delivered(response: "2")))
            #expect(await queue.counts().pending == 1)
            await queue.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.pending(limit: 10).map(\.id) == [id])
        #expect(try await queue.details(of: id) == imported)
        #expect(Array(try await queue.body(of: id)) == body(1))
    }

    @Test func purgeRemovesDeliveredBodiesAtOnceAndKeepsTheLiveOnes() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var options = SubmissionQueueOptions()
        options.journal.segmentSize = 4096
        let items = (0..<60).map(metadata)
        var q: [QueuedSubmission] = []
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: options, logger: logger)
            for i in 0..<60 { q.append(try await queue.enqueueNew(items[i], body: body(i))) }
            try await queue.markDead(q[3].id, reason: "HTTP 400", outcome: .rejected)
            _ = try #require(try await queue.requeue(q[3].id))
            try await queue.markDead(q[3].id, reason: "HTTP 409", outcome: .rejected)
            for i in 0..<60 where i != 3 && i != 7 { try await queue.markDelivered(q[i].id, response: nil) }
            let dead = await queue.dead()
            // Compaction leaves the active segment, which holds delivered bodies; purge does not.
            _ = try await queue.compact()
            let before = try queue.journal.segments()
            #expect(!before.isEmpty)
            let report = try await queue.purge()
            #expect(report.carriedRecords == 2)
            #expect(report.bytesBefore == before.reduce(0) { $0 + $1.bytes })
            let after = try queue.journal.segments()
            #expect(after.count == 1 && !before.map(\.name).contains(after[0].name))
            #expect(report.bytesAfter == after[0].bytes && report.bytesAfter < report.bytesBefore)
            #expect(queue.diskBytes == report.bytesAfter)
            #expect(await queue.dead() == dead)
            #expect(Array(try await queue.body(of: q[7].id)) == body(7))
            await queue.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, options: options, logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.pending(limit: 10) == [q[7]])
        let dead = try #require(await queue.dead().first)
        #expect(dead.submission.id == q[3].id && dead.reason == "HTTP 409" && dead.outcome == .rejected && dead.submission.requeueKey != nil)
        #expect(try await queue.details(of: q[3].id).session == items[3].session)
        // The newest number (a delivered submission's) is not handed out again.
        let next = try await queue.enqueueNew(metadata(60), body: body(60))
        #expect(next.id > q[59].id)
    }

    @Test func exportGivesBodiesOfLiveAndStillStoredDeliveredSubmissionsAcrossReopen() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let items = (0..<4).map(metadata)
        var q: [QueuedSubmission] = []
        var renewed: QueuedSubmission?
        do {
            let queue = try SubmissionQueue(directory: dir.path, logger: logger)
            for i in 0..<4 { q.append(try await queue.enqueueNew(items[i], body: body(i))) }
            try await queue.markDead(q[1].id, reason: "HTTP 400", outcome: .rejected)
            try await queue.markDead(q[2].id, reason: "HTTP 400", outcome: .rejected)
            renewed = try await queue.requeue(q[2].id)
            try await queue.markDelivered(q[2].id, response: nil)
            try await queue.markDelivered(q[3].id, response: "1")
            await queue.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        defer { queue.close(then: {}) }
        let live = try await queue.exportLive(states: [.pending, .dead])
        #expect(live.map(\.id) == [q[0].id, q[1].id] && live.map(\.state) == [.pending, .dead])
        #expect(live.map(\.metadata) == [items[0], items[1]] && live.map(\.body) == [body(0), body(1)])
        #expect(try await queue.exportLive(states: [.dead]).map(\.id) == [q[1].id])
        // Page by page: each page starts after the last one's end, and the last says so.
        let first = try await queue.exportLive(states: [.pending, .dead], after: nil, limit: 1)
        #expect(first.submissions.map(\.id) == [q[0].id] && first.next == q[0].id)
        let second = try await queue.exportLive(states: [.pending, .dead], after: first.next, limit: 1)
        #expect(second.submissions.map(\.id) == [q[1].id] && second.next == nil, "it reached the end")
        let past = try await queue.exportLive(states: [.pending, .dead], after: q[1].id, limit: 1)
        #expect(past.submissions.isEmpty && past.next == nil)
        #expect(try await queue.exportLive(states: [.pending], after: nil, limit: 5).next == nil)
        let delivered = try await queue.exportDelivered()
        #expect(delivered.map(\.id) == [q[2].id, q[3].id] && delivered.map(\.body) == [body(2), body(3)])
        #expect(delivered.map(\.metadata) == [items[2], items[3]])
        // Sent under the requeue's new key.
        #expect(delivered[0].idempotencyKey == renewed?.idempotencyKey && delivered[0].idempotencyKey != items[2].key)
        _ = try await queue.purge()
        #expect(try await queue.exportDelivered().isEmpty)
        #expect(try await queue.exportLive(states: [.pending, .dead]).map(\.body) == [body(0), body(1)])
    }
}

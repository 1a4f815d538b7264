import Foundation
import Logging
@testable import Storage
import SurveyTesting
import Testing

private let logger = Logger(label: "queue-dead-tests")

private func metadata(_ i: Int) -> SubmissionMetadata {
    SubmissionMetadata(key: UUID(), stage: "s\(i % 3)", language: "ko", definitionHash: "h1", queuedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)), session: UUID())
}

private func body(_ i: Int) -> [UInt8] { Array(#"{"answers":{"n":\#(i)}}"#.utf8) }

/// Dead letters' outcomes and the idempotency keys requeues give, kept across restarts and
/// compactions; journals written before outcomes were recorded still open.
@Suite(.timeLimit(.minutes(5))) struct SubmissionQueueDeadLetterTests {
    @Test func requeueChoosesTheKeyByOutcomeOrAsTold() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var q: [QueuedSubmission] = []
        var requeued: [QueuedSubmission] = []
        let sessions = (0..<5).map(metadata)
        do {
            let queue = try SubmissionQueue(directory: dir.path, logger: logger)
            for i in 0..<5 { q.append(try await queue.enqueueNew(sessions[i], body: body(i))) }
            try await queue.markDead(q[0].id, reason: "isSuccess: false", outcome: .rejected)
            try await queue.markDead(q[1].id, reason: "undecodable", outcome: .unknown)
            try await queue.markDead(q[2].id, reason: "HTTP 400", outcome: .rejected)
            try await queue.markDead(q[3].id, reason: "undecodable")
            #expect(await queue.dead().map(\.outcome) == [.rejected, .unknown, .rejected, .unknown])
            requeued.append(try #require(try await queue.requeue(q[0].id)))
            requeued.append(try #require(try await queue.requeue(q[1].id)))
            requeued.append(try #require(try await queue.requeue(q[2].id, key: .keep)))
            requeued.append(try #require(try await queue.requeue(q[3].id, key: .new)))
            await queue.close()
        }
        // Rejected: a new key; unknown: its own; `.keep` and `.new` override.
        #expect(requeued[0].requeueKey != nil && requeued[0].idempotencyKey != q[0].metadata.key)
        #expect(requeued[1] == q[1] && requeued[1].idempotencyKey == q[1].metadata.key)
        #expect(requeued[2] == q[2])
        #expect(requeued[3].requeueKey != nil && requeued[3].idempotencyKey != q[3].metadata.key)
        #expect(Set(requeued.compactMap(\.requeueKey)).count == 2)
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        defer { queue.close(then: {}) }
        // The new keys were journaled with the requeues; the submissions keep their own key as identity.
        #expect(await queue.pending(limit: 10) == requeued + [q[4]])
        #expect(await queue.state(of: q[0].metadata.key) == .pending)
        #expect(await queue.state(of: try #require(requeued[0].requeueKey)) == nil)
        #expect(try await queue.details(of: q[0].id).session == sessions[0].session)
        #expect(Array(try await queue.body(of: q[0].id)) == body(0))
        // Dead again with an unknown outcome: the key it was last sent with is kept.
        try await queue.markDead(q[0].id, reason: "undecodable", outcome: .unknown)
        #expect(await queue.dead() == [DeadSubmission(submission: requeued[0], reason: "undecodable", outcome: .unknown)])
        #expect(try await queue.requeue(q[0].id) == requeued[0])
        // Delivered: remembered under its own key.
        try await queue.markDelivered(q[0].id, response: "1")
        #expect(await queue.state(of: q[0].metadata.key) == .delivered(response: "1"))
        #expect(await queue.pending(limit: 10) == Array(requeued.dropFirst()) + [q[4]])
    }

    @Test func compactionCarriesOutcomesAndRequeueKeys() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var options = SubmissionQueueOptions()
        options.journal.segmentSize = 4096
        options.carryShare = 0.5
        var pending: [QueuedSubmission] = []
        var dead: [DeadSubmission] = []
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: options, logger: logger)
            var q: [QueuedSubmission] = []
            for i in 0..<200 { q.append(try await queue.enqueueNew(metadata(i), body: body(i))) }
            try await queue.markDead(q[3].id, reason: "rejected 3", outcome: .rejected)  // stays dead
            try await queue.markDead(q[5].id, reason: "unknown 5", outcome: .unknown)  // stays dead
            try await queue.markDead(q[7].id, reason: "rejected 7", outcome: .rejected)  // requeued: new key, pending
            _ = try await queue.requeue(q[7].id)
            try await queue.markDead(q[9].id, reason: "rejected 9", outcome: .rejected)  // new key, dead again
            _ = try await queue.requeue(q[9].id)
            try await queue.markDead(q[9].id, reason: "rejected again", outcome: .rejected)
            for i in 0..<200 where ![3, 5, 7, 9, 150].contains(i) { try await queue.markDelivered(q[i].id, response: nil) }
            pending = await queue.pending(limit: 10)
            dead = await queue.dead()
            let report = try await queue.compact()
            #expect(report.carriedRecords >= 4 && !report.removedSegments.isEmpty)
            #expect(await queue.pending(limit: 10) == pending)
            #expect(await queue.dead() == dead)
            await queue.close()
        }
        #expect(pending.count == 2 && pending[0].requeueKey != nil && pending[1].requeueKey == nil)
        #expect(dead.map(\.outcome) == [.rejected, .unknown, .rejected])
        #expect(dead.map { $0.submission.requeueKey != nil } == [false, false, true])
        let queue = try SubmissionQueue(directory: dir.path, options: options, logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.pending(limit: 10) == pending)
        #expect(await queue.dead() == dead)
        for letter in dead { #expect(Array(try await queue.body(of: letter.submission.id)) == body(Int(letter.submission.id.ordinal) - 1)) }
        // A rejected letter already sent under a new key gets another one.
        let again = try #require(try await queue.requeue(dead[2].submission.id))
        #expect(again.requeueKey != nil && again.requeueKey != dead[2].submission.requeueKey)
    }

    /// Records as every earlier version wrote them, byte for byte: an enqueued record with its dead
    /// flag, a dead marker ending after the reason, a requeued marker ending after its flag.
    @Test func aJournalWrittenBeforeOutcomesReadsItsDeadLettersAsUnknown() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let keys = [UUID(), UUID(), UUID()]
        do {
            let journal = try Journal(directory: dir.path, logger: logger)
            for (i, key) in keys.enumerated() {
                _ = try await journal.append(type: 1, payload: Self.oldEnqueued(ordinal: UInt64(i + 1), key: key, deadReason: i == 2 ? "carried dead" : nil))
            }
            _ = try await journal.append(type: 3, payload: Self.oldMarker(ordinal: 1, key: keys[0], text: "isSuccess: false"))
            _ = try await journal.append(type: 3, payload: Self.oldMarker(ordinal: 2, key: keys[1], text: "HTTP 400"))
            _ = try await journal.append(type: 4, payload: Self.oldMarker(ordinal: 2, key: keys[1], text: nil))
            await journal.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        defer { queue.close(then: {}) }
        let dead = await queue.dead()
        #expect(dead.map(\.submission.metadata.key) == [keys[0], keys[2]])
        #expect(dead.map(\.reason) == ["isSuccess: false", "carried dead"])
        #expect(dead.map(\.outcome) == [.unknown, .unknown])
        #expect(await queue.pending(limit: 10).map(\.idempotencyKey) == [keys[1]])
        #expect(Array(try await queue.body(of: SubmissionID(1))) == Array("{}".utf8))
        // Unknown: requeued with the key it had, as before.
        let requeued = try #require(try await queue.requeue(SubmissionID(1)))
        #expect(requeued.requeueKey == nil && requeued.idempotencyKey == keys[0])
    }

    @Test(arguments: [
        (UInt8(3), [UInt8(7)]),  // an outcome byte that means nothing
        (UInt8(3), [UInt8(1), 1]),  // more than the outcome byte
        (UInt8(4), [UInt8](repeating: 1, count: 15)),  // a new key cut short
    ])
    func aMarkerWithUnknownTrailingBytesIsRefused(type: UInt8, trailing: [UInt8]) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = UUID()
        do {
            let journal = try Journal(directory: dir.path, logger: logger)
            _ = try await journal.append(type: 1, payload: Self.oldEnqueued(ordinal: 1, key: key, deadReason: nil))
            _ = try await journal.append(type: type, payload: Self.oldMarker(ordinal: 1, key: key, text: type == 3 ? "reason" : nil) + trailing)
            await journal.close()
        }
        #expect { try SubmissionQueue(directory: dir.path, logger: logger) } throws: { ($0 as? StorageError)?.code == .undecodableRecord }
    }

    /// Two requeues of one letter at once: one wins, and the key it returns is the one journaled.
    @Test func concurrentRequeuesOfOneLetterJournalOneKey() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var winner: QueuedSubmission?
        do {
            let queue = try SubmissionQueue(directory: dir.path, logger: logger)
            let s = try await queue.enqueueNew(metadata(1), body: body(1))
            try await queue.markDead(s.id, reason: "isSuccess: false", outcome: .rejected)
            async let first = queue.requeue(s.id, key: .new)
            async let second = queue.requeue(s.id, key: .new)
            let results = try await [first, second].compactMap { $0 }
            #expect(results.count == 1)
            winner = results.first
            await queue.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.pending(limit: 10) == [try #require(winner)])
    }

    static func oldEnqueued(ordinal: UInt64, key: UUID, deadReason: String?) -> [UInt8] {
        var out: [UInt8] = []
        withUnsafeBytes(of: ordinal.littleEndian) { out += $0 }
        withUnsafeBytes(of: key.uuid) { out += $0 }
        withUnsafeBytes(of: Double(1_700_000_000).bitPattern.littleEndian) { out += $0 }
        out.append(0)  // no session
        for text in ["common", "ko", "h1"] { out += string(text) }
        if let deadReason { out.append(1); out += string(deadReason) } else { out.append(0) }
        return out + Array("{}".utf8)
    }

    static func oldMarker(ordinal: UInt64, key: UUID, text: String?) -> [UInt8] {
        var out: [UInt8] = []
        withUnsafeBytes(of: ordinal.littleEndian) { out += $0 }
        withUnsafeBytes(of: key.uuid) { out += $0 }
        if let text { out.append(1); out += string(text) } else { out.append(0) }
        return out
    }

    static func string(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        withUnsafeBytes(of: UInt32(text.utf8.count).littleEndian) { out += $0 }
        return out + Array(text.utf8)
    }
}

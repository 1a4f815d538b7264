import Foundation
import Logging
@testable import Storage
import SurveyTesting
import Testing

/// The consent version a submission carries (its `Survey-Consent` header): kept with it on disk,
/// through a reopen, a dead letter and its requeue, a purge that carries it forward, and an
/// encrypted journal; a submission without one has none.
@Suite(.timeLimit(.minutes(5))) struct SubmissionQueueConsentTests {
    static let logger = Logger(label: "queue-consent-tests")

    static func metadata(_ i: Int, consent: String?) -> SubmissionMetadata {
        SubmissionMetadata(
            key: UUID(), stage: "common", language: "ko", definitionHash: "h1", queuedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)),
            session: UUID(), headers: consent.map { ["Survey-Consent": $0] } ?? [:])
    }

    static func body(_ i: Int) -> [UInt8] { Array(#"{"answers":{"n":\#(i)}}"#.utf8) }

    static func consents(_ queue: SubmissionQueue, _ ids: [SubmissionID]) async throws -> [String?] {
        var result: [String?] = []
        for id in ids { result.append(try await queue.details(of: id).headers["Survey-Consent"]) }
        return result
    }

    @Test(arguments: [false, true])
    func theConsentVersionStaysWithItsSubmission(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var options = SubmissionQueueOptions()
        if encrypted { options.journal.encryption = Encryption.keys(1) }
        var queued: [QueuedSubmission] = []
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: options, logger: Self.logger)
            for i in 0..<4 {
                queued.append(try await queue.enqueueNew(Self.metadata(i, consent: i == 1 ? nil : "v\(i)-0123456789abcdef"), body: Self.body(i)))
            }
            #expect(try await Self.consents(queue, queued.map(\.id)) == ["v0-0123456789abcdef", nil, "v2-0123456789abcdef", "v3-0123456789abcdef"])
            try await queue.markDead(queued[2].id, reason: "400", outcome: .rejected)
            try await queue.markDelivered(queued[3].id, response: nil)
            await queue.close()
        }
        let reopened = try SubmissionQueue(directory: dir.path, options: options, logger: Self.logger)
        #expect(try await Self.consents(reopened, queued.prefix(3).map(\.id)) == ["v0-0123456789abcdef", nil, "v2-0123456789abcdef"])
        // A requeue under a new key keeps what the respondent agreed to.
        let requeued = try #require(try await reopened.requeue(queued[2].id, key: .new))
        #expect(try await reopened.details(of: requeued.id).headers["Survey-Consent"] == "v2-0123456789abcdef" && requeued.requeueKey != nil)
        // A purge writes the live submissions again: the versions go with them, bodies unchanged.
        _ = try await reopened.purge()
        #expect(try await Self.consents(reopened, queued.prefix(3).map(\.id)) == ["v0-0123456789abcdef", nil, "v2-0123456789abcdef"])
        #expect(Array(try await reopened.body(of: queued[0].id)) == Self.body(0))
        await reopened.close()
        let again = try SubmissionQueue(directory: dir.path, options: options, logger: Self.logger)
        defer { again.close(then: {}) }
        let pending = await again.pending(limit: 10)
        #expect(try await Self.consents(again, pending.map(\.id)) == ["v0-0123456789abcdef", nil, "v2-0123456789abcdef"])
        #expect(pending.last?.requeueKey == requeued.requeueKey)
        let uploads = await again.uploads(of: [queued[2].id])
        #expect(try uploads[0].get().headers == ["Survey-Consent": "v2-0123456789abcdef"])
        #expect(Array(try await again.body(of: queued[2].id)) == Self.body(2))
    }

    @Test func aFlagAnOlderReaderDoesNotKnowIsAnErrorNotAGuess() throws {
        let slot = SubmissionQueue.Slot(ordinal: 1, key: UUID(), queuedAt: 1, sequence: 0, offset: 0, segment: 0, meta: 0, state: .pending)
        let meta = SubmissionQueue.Meta(stage: "common", language: "ko", definitionHash: "h")
        let withHeaders = SubmissionQueue.Codec.enqueued(slot, meta, session: nil, headers: "Survey-Consent: abc", body: Self.body(1))
        #expect(withHeaders.type == .enqueuedWithState)
        let decoded = try #require(SubmissionQueue.Codec.decodeEnqueued(withHeaders.payload, type: withHeaders.type.rawValue))
        #expect(decoded.headers == "Survey-Consent: abc" && decoded.state.deadReason == nil && decoded.state.requeueKey == nil)
        var unknown = withHeaders.payload
        let flagsAt = decoded.bodyStart - ("Survey-Consent: abc".utf8.count + 4) - 1
        #expect(unknown[flagsAt] == 8)
        unknown[flagsAt] |= 16
        #expect(SubmissionQueue.Codec.decodeEnqueued(unknown, type: withHeaders.type.rawValue) == nil)
    }
}

import Foundation
import Logging
@testable import Storage
import SurveyTesting
import Testing

/// The consent version a submission carries (sent as `Survey-Consent`): kept with it in memory, on
/// disk, through a reopen, a dead letter and its requeue, a purge that carries it forward, and an
/// encrypted journal; a submission without one has none.
@Suite(.timeLimit(.minutes(5))) struct SubmissionQueueConsentTests {
    static let logger = Logger(label: "queue-consent-tests")

    static func metadata(_ i: Int, consent: String?) -> SubmissionMetadata {
        SubmissionMetadata(
            key: UUID(), stage: "common", language: "ko", definitionHash: "h1", queuedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)),
            session: UUID(), consent: consent)
    }

    static func body(_ i: Int) -> [UInt8] { Array(#"{"answers":{"n":\#(i)}}"#.utf8) }

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
            #expect(await queue.pending(limit: 10).map(\.metadata.consent) == ["v0-0123456789abcdef", nil, "v2-0123456789abcdef", "v3-0123456789abcdef"])
            try await queue.markDead(queued[2].id, reason: "400", outcome: .rejected)
            try await queue.markDelivered(queued[3].id, response: nil)
            await queue.close()
        }
        let reopened = try SubmissionQueue(directory: dir.path, options: options, logger: Self.logger)
        #expect(await reopened.pending(limit: 10).map(\.metadata.consent) == ["v0-0123456789abcdef", nil])
        #expect(await reopened.dead().map(\.submission.metadata.consent) == ["v2-0123456789abcdef"])
        // A requeue under a new key keeps what the respondent agreed to.
        let requeued = try #require(try await reopened.requeue(queued[2].id, key: .new))
        #expect(requeued.metadata.consent == "v2-0123456789abcdef" && requeued.requeueKey != nil)
        // A purge writes the live submissions again: the versions go with them, bodies unchanged.
        _ = try await reopened.purge()
        #expect(await reopened.pending(limit: 10).map(\.metadata.consent) == ["v0-0123456789abcdef", nil, "v2-0123456789abcdef"])
        #expect(Array(try await reopened.body(of: queued[0].id)) == Self.body(0))
        await reopened.close()
        let again = try SubmissionQueue(directory: dir.path, options: options, logger: Self.logger)
        defer { again.close(then: {}) }
        let pending = await again.pending(limit: 10)
        #expect(pending.map(\.metadata.consent) == ["v0-0123456789abcdef", nil, "v2-0123456789abcdef"])
        #expect(pending.last?.requeueKey == requeued.requeueKey)
        #expect(Array(try await again.body(of: queued[2].id)) == Self.body(2))
    }

    @Test func aRecordWithAConsentIsAnEnqueuedWithStateRecord() {
        let slot = SubmissionQueue.Slot(ordinal: 1, key: UUID(), queuedAt: 1, sequence: 0, offset: 0, segment: 0, meta: 0, state: .pending)
        let meta = SubmissionQueue.Meta(stage: "common", language: "ko", definitionHash: "h")
        let plain = SubmissionQueue.Codec.enqueued(slot, meta, session: nil, body: Self.body(1))
        #expect(plain.type == .enqueued)
        let withConsent = SubmissionQueue.Codec.enqueued(slot, meta, session: nil, state: .init(consent: "abc"), body: Self.body(1))
        #expect(withConsent.type == .enqueuedWithState)
        let decoded = SubmissionQueue.Codec.decodeEnqueued(withConsent.payload, type: withConsent.type.rawValue)
        #expect(decoded?.state.consent == "abc" && decoded?.state.deadReason == nil && decoded?.state.requeueKey == nil)
        #expect(Array(withConsent.payload[(decoded?.bodyStart ?? 0)...]) == Self.body(1))
        // A flag an older reader does not know is an error, not a guess.
        var unknown = withConsent.payload
        let flagsAt = (decoded?.bodyStart ?? 0) - 4 - 3 - 1
        unknown[flagsAt] |= 16
        #expect(SubmissionQueue.Codec.decodeEnqueued(unknown, type: withConsent.type.rawValue) == nil)
    }
}

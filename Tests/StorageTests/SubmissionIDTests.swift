import Foundation
import Logging
import Storage
import SurveyTesting
import Testing

/// The queue's submission ids and their text on the control API.
@Suite(.timeLimit(.minutes(5))) struct SubmissionIDTests {
    /// The text is the canonical decimal form and nothing else: `+5`, `05` or `5 ` never name
    /// submission 5, and a number past 64 bits names none.
    @Test(arguments: ["+5", "05", " 5", "5 ", "", "5\u{0}x", "5.0", "0x5", "\u{FF15}", "18446744073709551621", "99999999999999999999999", "-5", "5\n", "00"])
    func nonCanonicalTextNamesNoSubmission(text: String) {
        #expect(SubmissionID(text) == nil, "\(text.debugDescription)")
    }

    @Test(arguments: [UInt64(0), 1, 5, 42, 1_000_000, UInt64.max])
    func theTextReadsBack(ordinal: UInt64) throws {
        let id = SubmissionID(ordinal)
        #expect(id.description == String(ordinal))
        #expect(try #require(SubmissionID(id.description)) == id)
    }

    @Test func idsOrderAsTheQueueDoes() {
        #expect(SubmissionID(2) < SubmissionID(10))
        #expect([SubmissionID(10), SubmissionID(2)].sorted() == [SubmissionID(2), SubmissionID(10)])
    }

    /// `deadLetter(_:)` finds a dead letter by id with its reason and outcome, and nothing for a
    /// pending or unknown id.
    @Test func aDeadLetterIsFoundByItsID() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let queue = try SubmissionQueue(directory: dir.path, logger: Logger(label: "id-tests"))
        defer { queue.close(then: {}) }
        var queued: [QueuedSubmission] = []
        for i in 0..<3 {
            let metadata = SubmissionMetadata(key: UUID(), stage: "s\(i)", language: "ko", definitionHash: "h", queuedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)))
            queued.append(try await queue.enqueueNew(metadata, body: Array("{}".utf8)))
        }
        try await queue.markDead(queued[1].id, reason: "isSuccess: false", outcome: .rejected)
        #expect(await queue.deadLetter(queued[1].id) == DeadSubmission(submission: queued[1], reason: "isSuccess: false", outcome: .rejected))
        #expect(await queue.deadLetter(queued[0].id) == nil, "pending, not dead")
        #expect(await queue.deadLetter(SubmissionID(99)) == nil)
    }
}

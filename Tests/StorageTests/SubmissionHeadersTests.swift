import Foundation
import Logging
@testable import Storage
import SurveyTesting
import Testing

/// The headers an upload is sent with beside the contract's (the stage's paradata and quality
/// flags) are stored with its body: read back after a reopen, a carry forward, a dead letter and
/// its requeue, and by an export.
@Suite(.timeLimit(.minutes(5))) struct SubmissionHeadersTests {
    static let logger = Logger(label: "headers-tests")
    static let headers = [
        "Survey-Paradata": "questions=7, timed=7, total_ms=3410, median_ms=498, backs=0, changed=0, idle_gaps=0, still_there=0",
        "Survey-Quality": "speeding;fast=7;judged=7;median_ms=498",
    ]

    static func metadata(_ i: Int, headers: [String: String] = [:]) -> SubmissionMetadata {
        SubmissionMetadata(key: UUID(), stage: "common", language: "en", definitionHash: "h", queuedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)), headers: headers)
    }

    static func body(_ i: Int) -> [UInt8] { Array(#"{"answers":{"n":\#(i)}}"#.utf8) }

    @Test func headersStayWithTheBodyThroughReopenCarryForwardDeathAndRequeue() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var options = SubmissionQueueOptions()
        options.journal.segmentSize = 4096
        var flagged: QueuedSubmission?
        var plain: QueuedSubmission?
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: options, logger: Self.logger)
            for i in 0..<200 {
                let s = try await queue.enqueueNew(Self.metadata(i, headers: i == 7 ? Self.headers : [:]), body: Self.body(i))
                #expect(s.metadata.headers.isEmpty, "listings do not carry the headers")
                switch i {
                case 7: flagged = s
                case 8: plain = s
                default: try await queue.markDelivered(s.id, response: nil)
                }
            }
            let report = try await queue.compact()
            #expect(report.carriedRecords == 2)
            await queue.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, options: options, logger: Self.logger)
        defer { queue.close(then: {}) }
        let id = try #require(flagged).id
        #expect(try await queue.details(of: id).headers == Self.headers)
        let uploads = await queue.uploads(of: [id, try #require(plain).id])
        let first = try uploads[0].get()
        #expect(first.headers == Self.headers && Array(first.body) == Self.body(7))
        let second = try uploads[1].get()
        #expect(second.headers.isEmpty && Array(second.body) == Self.body(8))
        // A dead letter keeps them, and so does its requeue under a new key.
        try await queue.markDead(id, reason: "refused", outcome: .rejected)
        #expect(try await queue.entry(id, withBody: false)?.headers == Self.headers)
        let requeued = try #require(try await queue.requeue(id))
        #expect(try await queue.details(of: requeued.id).headers == Self.headers)
        let exported = try await queue.exportLive(states: [.pending])
        #expect(exported.first { $0.id == requeued.id }?.metadata.headers == Self.headers)
    }

    @Test func aRecordWithHeadersIsAnEnqueuedWithStateRecordAndAnOlderOneReadsWithout() throws {
        let slot = SubmissionQueue.Slot(ordinal: 3, key: UUID(), queuedAt: 1.5, sequence: 0, offset: 0, segment: 0, meta: 0, state: .pending)
        let meta = SubmissionQueue.Meta(stage: "common", language: "en", definitionHash: "h")
        let text = Self.metadata(0, headers: Self.headers).headersText
        let with = SubmissionQueue.Codec.enqueued(slot, meta, session: nil, headers: text, body: Self.body(1))
        #expect(with.type == .enqueuedWithState)
        let decoded = try #require(SubmissionQueue.Codec.decodeEnqueued(with.payload, type: with.type.rawValue))
        #expect(SubmissionMetadata.headers(fromText: decoded.headers) == Self.headers)
        #expect(Array(with.payload[decoded.bodyStart...]) == Self.body(1))
        let without = SubmissionQueue.Codec.enqueued(slot, meta, session: nil, body: Self.body(1))
        #expect(without.type == .enqueued)
        #expect(SubmissionQueue.Codec.decodeEnqueued(without.payload, type: without.type.rawValue)?.headers == nil)
        // A header that would break the stored lines is left out, not stored half.
        #expect(Self.metadata(0, headers: ["Bad": "a\nb", "Bad:Name": "x", "Good": "y"]).headersText == "Good: y")
    }
}

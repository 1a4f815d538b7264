import Foundation
import Logging
import Storage
@testable import SurveyDaemon
import SurveyTesting
import Synchronization
import Testing

/// What the delivery worker does with a reply that is not the survey server's (it waits, as while
/// offline, and never makes a dead letter of it) and with a reply of the server's own whose
/// outcome cannot be read (sent again under the same key a few times, then kept aside).
@Suite(.timeLimit(.minutes(2))) struct PortalDeliveryTests {
    func worker(_ queue: MemoryDeliveryQueue, _ uploader: ScriptedUploader, clock: ManualClock, start: Date) -> DeliveryWorker {
        DeliveryWorker(
            queue: queue, uploader: uploader,
            settings: .init(maxInFlight: 1, backoff: { _, _ in .seconds(1) }, offlinePause: .seconds(30)),
            clock: clock, now: { start }, logger: Logger(label: "test")
        ) { _, _ in }
    }

    @Test func aPortalNeverMakesADeadLetterAndStatusNamesIt() async throws {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("a", at: 1)
        let portal = UploadOutcome.notTheServer(reason: "Something else answered in the place of the survey server: 200 text/html")
        let uploader = ScriptedUploader(["a": Array(repeating: portal, count: 20)])
        let clock = ManualClock()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let worker = worker(queue, uploader, clock: clock, start: start)
        for _ in 0 ..< 20 {
            #expect(await worker.deliverRound() == .seconds(30), "it waits as while offline")
            clock.advance(by: .seconds(30))
        }
        #expect(queue.states() == [.pending], "twenty portal answers, still pending, never dead")
        #expect(Set(uploader.attempts.withLock { $0.map(\.key) }).count == 1, "always the same key")
        let waiting = try #require(await worker.waiting(pending: 1))
        #expect(waiting.reason.contains("something else answers in the survey server's place") && waiting.reason.contains("200 text/html"), "\(waiting.reason)")
        #expect(await worker.snapshot.lastOutcomeOffline, "the connectivity watcher wakes it once the server itself answers")

        _ = await worker.deliverRound()
        #expect(queue.states() == [.delivered(response: nil)])
        #expect(await worker.waiting(pending: 0) == nil)
    }

    /// A certificate the clock (or its dates) makes unusable: the upload waits as while offline,
    /// never a dead letter, and status says it is the certificate, not a portal.
    @Test func anUnusableCertificateWaitsAndStatusNamesIt() async throws {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("a", at: 1)
        let certificate = UploadOutcome.certificate(reason: "this device's clock is not set")
        let uploader = ScriptedUploader(["a": Array(repeating: certificate, count: 5)])
        let clock = ManualClock()
        let worker = worker(queue, uploader, clock: clock, start: Date(timeIntervalSince1970: 1_800_000_000))
        for _ in 0 ..< 5 {
            #expect(await worker.deliverRound() == .seconds(30), "it waits as while offline")
            clock.advance(by: .seconds(30))
        }
        #expect(queue.states() == [.pending])
        let waiting = try #require(await worker.waiting(pending: 1))
        #expect(waiting.reason.contains("the survey server's certificate cannot be used") && waiting.reason.contains("clock is not set"), "\(waiting.reason)")
        #expect(!waiting.reason.contains("something else answers"), "\(waiting.reason)")
        #expect(await worker.snapshot.lastOutcomeOffline)
    }

    @Test func anUnknownOutcomeIsSentAgainUnderTheSameKeyThenKeptAside() async throws {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("a", at: 1)
        _ = queue.add("b", at: 2)
        let unknown = UploadOutcome.unknown(reason: "HTTP 200: the reply could not be read")
        let limit = DeliveryWorker.unknownOutcomeAttempts
        let uploader = ScriptedUploader([
            "a": Array(repeating: unknown, count: limit),
            "b": Array(repeating: unknown, count: limit - 1) + [.delivered(nextTypeId: nil)],
        ])
        let clock = ManualClock()
        let worker = worker(queue, uploader, clock: clock, start: Date(timeIntervalSince1970: 1_800_000_000))
        for _ in 0 ..< limit * 3 {
            _ = await worker.deliverRound()
            clock.advance(by: .seconds(2))
        }
        let states = queue.states()
        guard case .dead(let reason) = states.first else { Issue.record("\(states)"); return }
        #expect(reason.contains("unknown after \(limit) attempts"), "\(reason)")
        #expect(states.last == .delivered(response: nil), "a reply read on the last attempt delivers it")
        let attempts = uploader.attempts.withLock { $0 }
        #expect(attempts.filter { $0.stage == "a" }.count == limit)
        #expect(Set(attempts.filter { $0.stage == "a" }.map(\.key)).count == 1, "every attempt under the same key")
    }
}

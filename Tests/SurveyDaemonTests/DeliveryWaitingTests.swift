import ControlAPI
import Synchronization

import Foundation
import Logging
import Storage
@testable import SurveyDaemon
import SurveyTesting
import Testing

/// Status says why the next upload waits and until when at the latest: the server could not be
/// reached, or a failed upload waits out its backoff; nothing once uploads go through.
@Suite(.timeLimit(.minutes(2))) struct DeliveryWaitingTests {
    @Test func statusSaysWhyTheNextUploadWaitsAndUntilWhen() async throws {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("a", at: 1)
        let uploader = ScriptedUploader(["a": [.transient(reason: "the server answered 502", retryAfter: .seconds(60))]])
        uploader.offline.withLock { $0 = true }
        let clock = ManualClock()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let worker = DeliveryWorker(
            queue: queue, uploader: uploader,
            settings: .init(maxInFlight: 1, backoff: { _, retryAfter in retryAfter ?? .seconds(1) }, offlinePause: .seconds(30)),
            clock: clock, now: { start }, logger: Logger(label: "test")
        ) { _, _ in }
        #expect(await worker.waiting(pending: 1) == nil, "nothing was tried yet: the upload is due")

        // Unreachable: the worker sleeps for its offline pause unless a connectivity check wakes it.
        #expect(await worker.deliverRound() == .seconds(30))
        let offline = try #require(await worker.waiting(pending: 1))
        #expect(offline.reason.contains("the survey server could not be reached") && offline.reason.contains(start.iso8601Seconds), "\(offline.reason)")
        #expect(offline.until == start.addingTimeInterval(30))

        // Reachable, but the upload fails: it waits out the server's Retry-After.
        uploader.offline.withLock { $0 = false }
        _ = await worker.deliverRound()
        let retry = try #require(await worker.waiting(pending: 1))
        #expect(retry.reason.contains("retrying after a failed upload") && retry.reason.contains("the server answered 502"), "\(retry.reason)")
        #expect(retry.until == start.addingTimeInterval(60))

        // Delivered: nothing waits.
        clock.advance(by: .seconds(60))
        _ = await worker.deliverRound()
        #expect(queue.states() == [.delivered(response: nil)])
        #expect(await worker.waiting(pending: 0) == nil)
    }
}

import Foundation
import Logging
import Networking
import Storage
import Synchronization
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// What the worker announces of its next upload is when it really starts: the later of the
/// submission's backoff and the ramp's hold-off after a 429/503, with the refusal as the reason.
@Suite(.timeLimit(.minutes(5))) struct DeliveryScheduleTests {
    let date = Date(timeIntervalSince1970: 1_800_000_000)

    /// A worker whose hold-off draw is half its window: 12 s × 0.5 = 6 s after the first refusal,
    /// on top of the server's `Retry-After`; the submission's own backoff is the `Retry-After`.
    /// Its wall clock is `date` plus the time the manual clock has moved.
    func worker(_ queue: MemoryDeliveryQueue, _ uploader: ScriptedUploader, clock: ManualClock) -> DeliveryWorker {
        DeliveryWorker(
            queue: queue, uploader: uploader,
            settings: .init(maxInFlight: 4, backoff: { _, retryAfter in retryAfter ?? .seconds(1) }, offlinePause: .seconds(3600),
                            ramp: DeliveryRamp.Settings(maxWindow: 4, initialRate: nil)),
            clock: clock, now: { [date] in date.addingTimeInterval(clock.now.offset.timeInterval) }, unitRandom: { 0.5 }, logger: Logger(label: "test")
        ) { _, _ in }
    }

    @Test func aRetryAfterIsAnnouncedWithTheHoldOff() async throws {
        let queue = MemoryDeliveryQueue()
        let id = queue.add("busy", at: 1).id
        let uploader = ScriptedUploader(["busy": [.overloaded(reason: "503", status: 503, retryAfter: .seconds(3))]])
        let clock = ManualClock()
        let w = worker(queue, uploader, clock: clock)
        #expect(await w.nextStart(pending: 1) == date, "due now, nothing holds it")
        _ = await w.deliverRound()

        // The backoff alone would say 3 s; the hold-off is 3 s + 6 s.
        let until = date.addingTimeInterval(9)
        #expect(await w.holdOff == DeliveryWorker.HoldOff(reason: "the server asked to wait (503)", status: 503, until: until))
        #expect(await w.nextStart(pending: 1) == until)
        #expect(await w.retryStates()[id]?.nextRetryAt == until)
        // A stage finished meanwhile is due at once, and held off all the same.
        _ = queue.add("ok", at: 2)
        #expect(await w.nextStart(pending: 2) == until)

        clock.advance(by: .seconds(3))
        #expect(await w.deliverRound() == .seconds(6), "the backoff has ended, the hold-off has not")
        #expect(uploader.attempts.withLock { $0.count } == 1)
        #expect(await w.nextStart(pending: 2) == until)

        clock.advance(by: .seconds(6))
        _ = await w.deliverRound()
        #expect(uploader.attempts.withLock { $0.count } == 3)
        #expect(queue.states().allSatisfy { $0 == .delivered(response: nil) })
        #expect(await w.holdOff == nil)
        #expect(await w.nextStart(pending: 0) == nil)
    }

    /// A 429 without `Retry-After` is a hold-off of the draw alone, and says so; a flush ends it.
    @Test func anOverloadWithoutRetryAfterAndAFlush() async throws {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("busy", at: 1)
        let uploader = ScriptedUploader(["busy": [.overloaded(reason: "429", status: 429, retryAfter: nil)]])
        let w = worker(queue, uploader, clock: ManualClock())
        _ = await w.deliverRound()
        #expect(await w.holdOff == DeliveryWorker.HoldOff(reason: "the server said it is overloaded (429)", status: 429, until: date.addingTimeInterval(6)))
        #expect(await w.nextStart(pending: 1) == date.addingTimeInterval(6))
        await w.flush()
        #expect(await w.holdOff == nil)
        #expect(await w.nextStart(pending: 1) == date)
    }

    /// The ramp's pace held the next upload back, and its time passed while the last outcome was
    /// recorded (a slow sync): the round must say "go on now", not "sleep until woken", or the
    /// submission waits for the next stage to be queued.
    @Test func aSubmissionThePaceHeldBackIsNotLeftAsleep() async throws {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("first", at: 1)
        _ = queue.add("second", at: 2)
        let clock = ManualClock()
        queue.whileRecording.withLock { $0 = { clock.advance(by: .seconds(2)) } }
        let uploader = ScriptedUploader()
        let w = DeliveryWorker(
            queue: queue, uploader: uploader,
            settings: .init(maxInFlight: 1, backoff: { _, _ in .seconds(1) }, offlinePause: .seconds(3600),
                            ramp: DeliveryRamp.Settings(initialWindow: 1, maxWindow: 1, initialRate: 1)),
            clock: clock, now: { [date] in date.addingTimeInterval(clock.now.offset.timeInterval) }, unitRandom: { 0.5 }, logger: Logger(label: "test")
        ) { _, _ in }
        // One upload a second: the second waits for the pace, which ends (at 1 s) while the
        // first's delivery is recorded (the clock goes to 2 s).
        let pause = await w.deliverRound()
        #expect(uploader.attempts.withLock { $0.map(\.stage) } == ["first"])
        #expect(pause == .zero, "the second is due: the round says go on at once, not \(String(describing: pause))")
        _ = await w.deliverRound()
        #expect(queue.states() == [.delivered(response: nil), .delivered(response: nil)])
    }
}

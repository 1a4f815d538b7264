import ControlAPI
import Foundation
import Logging
import Networking
import NIOCore
import Storage
import SurveyTesting
import Synchronization
import Testing
@testable import SurveyDaemon

/// How the daemon treats a server that is down or overloaded: the watcher's probes back off, and
/// the worker's ramp closes on 503/429.
@Suite(.timeLimit(.minutes(5))) struct FleetDeliveryTests {
    /// A worker whose ramp has a window and a hold-off, and a pace only with `initialRate`.
    func worker(_ queue: MemoryDeliveryQueue, _ uploader: any AnswerUploader, clock: ManualClock, initialWindow: Int = 1, initialRate: Double? = nil) -> DeliveryWorker {
        DeliveryWorker(
            queue: queue, uploader: uploader,
            settings: .init(maxInFlight: 4, backoff: { _, retryAfter in retryAfter ?? .seconds(1) }, offlinePause: .seconds(3600),
                            ramp: DeliveryRamp.Settings(initialWindow: initialWindow, maxWindow: 4, initialRate: initialRate)),
            clock: clock, unitRandom: { 0 }, logger: Logger(label: "test")
        ) { _, _ in }
    }

    /// With nothing on its way, the round ends at the pace and the worker sleeps until the next
    /// upload may start: one a second at first. With one on its way, the round waits for the
    /// pace, now 10 % faster after a delivery, and goes on.
    @Test func uploadsStartAtThePace() async throws {
        let queue = MemoryDeliveryQueue()
        for second in 1 ... 3 { _ = queue.add("ok", at: TimeInterval(second)) }
        let uploader = ScriptedUploader()
        let clock = ManualClock()
        let w = worker(queue, uploader, clock: clock, initialRate: 1)
        #expect(await w.deliverRound() == .seconds(1), "one upload, a window of one: nothing on its way at the pace")
        #expect(uploader.attempts.withLock { $0.count } == 1)
        #expect(await w.deliverRound() == .seconds(1), "not yet: nothing sent")
        #expect(uploader.attempts.withLock { $0.count } == 1)
        clock.advance(by: .seconds(1))
        let round = Task { await w.deliverRound() }
        try await clock.waitForSleepers(1)
        #expect(clock.deadlines == [.nanoseconds(1_909_090_909)], "the second started at 1 s, at 1.1 a second")
        #expect(await eventually { uploader.attempts.withLock { $0.count } == 2 })
        clock.advance(by: .nanoseconds(909_090_909))
        #expect(await round.value == nil, "all delivered: nothing to wait for, the pace included")
        #expect(uploader.attempts.withLock { $0.count } == 3)
        #expect(queue.states().allSatisfy { $0 == .delivered(response: nil) })
    }

    /// A round of `stages` under way, with a window of two and a pace of one a second; `slow`
    /// uploads take 5 s of the manual clock.
    func pacedRound(_ stages: [String]) -> (MemoryDeliveryQueue, ManualClock, ClockedUploader, Task<Duration?, Never>) {
        let queue = MemoryDeliveryQueue()
        for (index, stage) in stages.enumerated() { _ = queue.add(stage, at: TimeInterval(index + 1)) }
        let clock = ManualClock()
        let uploader = ClockedUploader(clock: clock, slow: .seconds(5))
        let w = worker(queue, uploader, clock: clock, initialWindow: 2, initialRate: 1)
        return (queue, clock, uploader, Task { await w.deliverRound() })
    }

    /// A round cancelled while its pace timer waits launches nothing more and ends without the
    /// clock moving.
    @Test func aCancelledRoundEndsWithItsPaceTimer() async throws {
        let (_, clock, uploader, round) = pacedRound(["slow", "ok"])
        try await clock.waitForSleepers(2)
        round.cancel()
        _ = await round.value
        #expect(uploader.starts.withLock { $0 } == [ClockedUploader.Start(stage: "slow", at: .zero)])
        #expect(clock.sleeping == 0)
    }

    /// While an upload is on its way, the next starts when the pace allows, not when the first
    /// comes back.
    @Test func thePaceStartsUploadsWhileOthersAreOnTheirWay() async throws {
        let (queue, clock, uploader, round) = pacedRound(["slow", "ok", "ok"])
        try await clock.waitForSleepers(2)
        #expect(clock.deadlines == [.seconds(1), .seconds(5)], "the pace's timer and the slow upload")
        clock.advance(by: .seconds(1))
        // The second upload started at 1 s, at the pace of then (one a second): the third may
        // start at 2 s, while the slow one is still on its way.
        try await clock.waitForSleepers(2)
        #expect(clock.deadlines == [.seconds(2), .seconds(5)])
        clock.advance(by: .seconds(1))
        #expect(await eventually { uploader.starts.withLock { $0.count } == 3 })
        #expect(clock.deadlines == [.seconds(5)])
        clock.advance(by: .seconds(3))
        _ = await round.value
        #expect(uploader.starts.withLock { $0 } == [
            ClockedUploader.Start(stage: "slow", at: .zero), ClockedUploader.Start(stage: "ok", at: .seconds(1)),
            ClockedUploader.Start(stage: "ok", at: .seconds(2)),
        ])
        #expect(queue.states().allSatisfy { $0 == .delivered(response: nil) })
    }

    /// Deliveries open the window to maxInFlight; a 503 with Retry-After closes it to one upload
    /// and holds every upload off until Retry-After has passed.
    @Test func a503WithRetryAfterShrinksTheWindowAndHoldsOff() async throws {
        let queue = MemoryDeliveryQueue()
        for second in 1 ... 3 { _ = queue.add("ok", at: TimeInterval(second)) }
        let uploader = ScriptedUploader(["busy": [.overloaded(reason: "503", status: 503, retryAfter: .seconds(10))]])
        let clock = ManualClock()
        let w = worker(queue, uploader, clock: clock)
        _ = await w.deliverRound()
        #expect(await w.ramp.window == 4, "three deliveries opened the window from 1 to 4")

        _ = queue.add("busy", at: 4)
        let pause = await w.deliverRound()
        #expect(await w.ramp.window == 1)
        #expect(pause == .seconds(10))

        _ = queue.add("ok", at: 5)
        _ = queue.add("ok", at: 6)
        let held = await w.deliverRound()
        #expect(held == .seconds(10), "held off: nothing sent")
        #expect(uploader.attempts.withLock { $0.count } == 4)

        clock.advance(by: .seconds(10))
        _ = await w.deliverRound()
        #expect(uploader.attempts.withLock { $0.count } == 7)
        #expect(queue.states().allSatisfy { $0 == .delivered(response: nil) })
    }

    /// A flush asks for every upload now: it ends the hold-off too.
    @Test func flushEndsTheHoldOff() async throws {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("busy", at: 1)
        let uploader = ScriptedUploader(["busy": [.overloaded(reason: "503", status: 503, retryAfter: .seconds(30))]])
        let w = worker(queue, uploader, clock: ManualClock())
        _ = await w.deliverRound()
        #expect(await w.ramp.holdUntil == .seconds(30))
        await w.flush()
        _ = await w.deliverRound()
        #expect(uploader.attempts.withLock { $0.count } == 2)
        #expect(queue.states() == [.delivered(response: nil)])
    }

    /// A 503 without Retry-After halves the window.
    @Test func a503WithoutRetryAfterHalvesTheWindow() async throws {
        let queue = MemoryDeliveryQueue()
        for second in 1 ... 3 { _ = queue.add("ok", at: TimeInterval(second)) }
        let uploader = ScriptedUploader(["busy": [.overloaded(reason: "503", status: 503, retryAfter: nil)]])
        let w = worker(queue, uploader, clock: ManualClock())
        _ = await w.deliverRound()
        _ = queue.add("busy", at: 4)
        _ = await w.deliverRound()
        #expect(await w.ramp.window == 2)
    }

    /// The server found offline: the next round starts again from one upload.
    @Test func anOutageRestartsTheRamp() async throws {
        let queue = MemoryDeliveryQueue()
        for second in 1 ... 3 { _ = queue.add("ok", at: TimeInterval(second)) }
        let uploader = ScriptedUploader()
        let w = worker(queue, uploader, clock: ManualClock())
        _ = await w.deliverRound()
        _ = queue.add("ok", at: 4)
        uploader.offline.withLock { $0 = true }
        _ = await w.deliverRound()
        #expect(await w.ramp.window == 1)
    }

    /// While the server stays unreachable the watcher's probes come at 2, 4, 8, 16 and 32 s
    /// (the top of each jitter window), not every 2 s; once it is back, one probe wakes the worker,
    /// and with nothing left to deliver the watcher sets no timer.
    @Test func theWatcherBacksOffWhileOffline() async throws {
        let offline = OfflineDelivery()
        let (queue, uploader, worker) = (offline.queue, offline.uploader, offline.worker)
        let probe = SwitchProbe()
        let clock = ManualClock()
        let watcher = ConnectivityWatcher(
            monitor: ConnectivityMonitor(probe: probe, reuse: .zero), worker: worker, queue: queue,
            schedule: ProbeSchedule(base: .seconds(2), cap: .seconds(60)), clock: clock, unitRandom: { 1 })
        try await InjectedClockTests().running([worker, watcher]) {
            #expect(await eventually { await worker.snapshot.lastOutcomeOffline })
            try await clock.waitForSleepers(1)
            for _ in 0 ..< 40 {
                clock.advance(by: .seconds(1))
                try await clock.waitForSleepers(1)
            }
            #expect(probe.calls.withLock { $0 } == 5, "probes at 2, 4, 8, 16 and 32 s")
            probe.reachable.withLock { $0 = true }
            uploader.offline.withLock { $0 = false }
            for _ in 0 ..< 24 {
                clock.advance(by: .seconds(1))
                // Asleep until the next probe, or past the one that found the server back.
                #expect(await eventually { clock.sleeping == 1 || probe.calls.withLock { $0 } == 6 })
            }
            #expect(probe.calls.withLock { $0 } == 6)
            #expect(await eventually { queue.states() == [.delivered(response: nil)] })
            // At most one more look, one base interval later; then no probe and no timer: the
            // watcher waits for a round that finds the server offline.
            #expect(await eventually {
                if clock.sleeping == 1 { clock.advance(by: .seconds(2)) }
                return clock.sleeping == 0 && worker.wentOffline.isWaiting
            }, "online with nothing waiting: no probe, no timer")
        }
    }
}

/// Delivers every upload, noting when each started on the manual clock; `slow` ones take
/// `slow` of it.
final class ClockedUploader: AnswerUploader {
    struct Start: Equatable {
        var stage: String
        var at: Duration
    }

    let clock: ManualClock
    let slow: Duration
    let starts = Mutex<[Start]>([])

    init(clock: ManualClock, slow: Duration) {
        self.clock = clock
        self.slow = slow
    }

    func upload(stage: String, language: String, body: ByteBuffer, idempotencyKey: UUID) async -> UploadOutcome {
        starts.withLock { $0.append(Start(stage: stage, at: clock.now.offset)) }
        if stage == "slow" { try? await clock.sleep(until: clock.now.advanced(by: slow), tolerance: nil) }
        return .delivered(nextTypeId: nil)
    }
}

/// The device id in status: the backend's id in the JSON (decoded back the same) and a line of
/// `surveyctl status`; a reply without it (an older daemon) decodes as none.
@Suite(.timeLimit(.minutes(5))) struct DeviceIdStatusTests {
    @Test func statusCarriesTheDeviceId() throws {
        var status = StatusView(
            version: "0.2.0", startedAt: "t", uptimeSeconds: 1, connectivity: .init(state: "online", since: nil),
            queue: .init(pending: 0, inFlight: 0, dead: 0, delivered: 0, oldestPendingAgeSeconds: nil, lastDeliveryAt: nil, nextRetryAt: nil),
            journalProblems: [], sessions: [])
        #expect(!Rendering.status(status).contains { $0.hasPrefix("device:") })
        let older = try JSONDecoder().decode(StatusView.self, from: JSONEncoder().encode(status))
        #expect(older.deviceId == nil)
        status.deviceId = "kiosk-7"
        #expect(Rendering.status(status).contains("device: kiosk-7"))
        let decoded = try JSONDecoder().decode(StatusView.self, from: JSONEncoder().encode(status))
        #expect(decoded.deviceId == "kiosk-7")
    }
}

/// The connectivity watcher probes while this queue has pending submissions.
extension MemoryDeliveryQueue: PendingCount {
    func pendingCount() async -> Int { states().filter { $0 == .pending }.count }
}

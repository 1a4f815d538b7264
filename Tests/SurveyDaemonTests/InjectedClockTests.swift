import ControlAPI
import Foundation
import Logging
import Networking
import ServiceLifecycle
import Storage
@testable import SurveyDaemon
import SurveyTesting
import Synchronization
import Testing

/// The delivery worker, the connectivity watcher and housekeeping measure and sleep on the clock
/// they are given, and the worker dates what it shows with the date source it is given.
@Suite(.timeLimit(.minutes(5))) struct InjectedClockTests {
    /// Runs `services` until `body` returns, then shuts them down gracefully.
    func running(_ services: [any Service], _ body: () async throws -> Void) async throws {
        let group = ServiceGroup(services: services, gracefulShutdownSignals: [], logger: Logger(label: "test"))
        let task = Task { try await group.run() }
        do {
            try await body()
        } catch {
            await group.triggerGracefulShutdown()
            try await task.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await task.value
    }

    @Test func theWorkerBacksOffOnItsClockAndDatesWithItsSource() async throws {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("slow", at: 1)
        let uploader = ScriptedUploader(["slow": [.transient(reason: "503", retryAfter: .seconds(3600))]])
        let clock = ManualClock()
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let worker = DeliveryWorker(
            queue: queue, uploader: uploader,
            settings: .init(maxInFlight: 1, backoff: { _, retryAfter in retryAfter ?? .seconds(1) }, offlinePause: .seconds(7200)),
            clock: clock, now: { date }, logger: Logger(label: "test")
        ) { _, _ in }
        try await running([worker]) {
            // The failed attempt waits out its hour asleep on the manual clock.
            #expect(await eventually { await worker.nextStart(pending: 1) == date.addingTimeInterval(3600) && clock.sleeping == 1 })
            #expect(uploader.attempts.withLock { $0.count } == 1)
            clock.advance(by: .seconds(3599))
            #expect(clock.sleeping == 1, "one second of the backoff is left")
            #expect(queue.states() == [.pending])
            clock.advance(by: .seconds(1))
            #expect(await eventually { queue.states() == [.delivered(response: nil)] })
            #expect(uploader.attempts.withLock { $0.count } == 2)
            #expect(await worker.snapshot.lastDeliveryAt == date)
        }
    }

    /// The watcher probes only when its clock says an interval has passed; then it wakes the
    /// worker, which found the server offline and would otherwise sleep for an hour.
    @Test func theWatcherChecksWhenItsClockSays() async throws {
        let offline = OfflineDelivery()
        let (queue, uploader, worker) = (offline.queue, offline.uploader, offline.worker)
        let probe = SwitchProbe()
        probe.reachable.withLock { $0 = true }
        let clock = ManualClock()
        let watcher = ConnectivityWatcher(monitor: ConnectivityMonitor(probe: probe, reuse: .zero), worker: worker, queue: queue, schedule: ProbeSchedule(base: .seconds(2), cap: .seconds(60)), clock: clock)
        try await running([worker, watcher]) {
            #expect(await eventually { await worker.snapshot.lastOutcomeOffline && clock.sleeping == 1 })
            uploader.offline.withLock { $0 = false }
            clock.advance(by: .seconds(1))
            #expect(probe.calls.withLock { $0 } == 0, "half an interval: no probe")
            clock.advance(by: .seconds(1))
            #expect(await eventually { queue.states() == [.delivered(response: nil)] })
            #expect(probe.calls.withLock { $0 } == 1)
        }
    }

    /// Housekeeping sleeps on its clock until the open session's idle deadline, closes it then,
    /// and with nothing left to do but the compaction after the start, sleeps until that.
    @Test func housekeepingSleepsUntilTheIdleDeadline() async throws {
        let dir = try TemporaryDirectory(prefix: "keep")
        defer { dir.remove() }
        let parts = try HousekeepingParts(in: dir)
        defer { parts.storage.close(then: {}) }
        let (storage, cache, dates, sessions) = (parts.storage, parts.cache, parts.dates, parts.sessions)
        let started = try await sessions.start(StartSessionRequest())
        dates.advance(20)
        let clock = ManualClock()
        let housekeeping = Housekeeping(sessions: sessions, queue: storage, cache: cache, clock: clock, logger: Logger(label: "test"))
        try await running([housekeeping]) {
            try await clock.waitForSleepers(1)
            #expect(clock.deadlines == [.seconds(40) + .milliseconds(1)], "40 s of the 60 s idle timeout are left")
            dates.advance(40.001)
            clock.advance(by: .seconds(40))
            #expect(clock.deadlines == [.seconds(40) + .milliseconds(1)], "not woken early")
            #expect(await sessions.openSessions().count == 1)
            clock.advance(by: .milliseconds(1))
            #expect(await eventually { await sessions.openSessions().isEmpty })
            #expect(try await sessions.view(id: started.id).outcome == "abandoned")
            // Nothing left but the journal's compaction, 600 s after the start.
            #expect(await eventually { clock.deadlines == [.seconds(600)] })
        }
    }

    /// With nothing to do, housekeeping sets no timer: it wakes for a session that starts, or
    /// for a reloaded idle timeout, and sleeps until the deadline that follows.
    @Test func housekeepingWithNothingToDoSetsNoTimer() async throws {
        let dir = try TemporaryDirectory(prefix: "keep")
        defer { dir.remove() }
        let parts = try HousekeepingParts(in: dir)
        defer { parts.storage.close(then: {}) }
        let (storage, cache, dates, sessions) = (parts.storage, parts.cache, parts.dates, parts.sessions)
        let clock = ManualClock()
        let events = DaemonEvents()
        let wakeup = DeliveryWakeup()
        let housekeeping = Housekeeping(sessions: sessions, queue: storage, cache: cache, clock: clock, events: events, wakeup: wakeup, logger: Logger(label: "test"))
        try await running([housekeeping]) {
            // The compaction after the start, then nothing.
            try await clock.waitForSleepers(1)
            #expect(clock.deadlines == [.seconds(600)])
            clock.advance(by: .seconds(600))
            #expect(await eventually { clock.sleeping == 0 && wakeup.isWaiting }, "nothing to do: no timer")

            // A session starts: its idle deadline, 60 s (and a millisecond) away.
            let first = try await sessions.start(StartSessionRequest())
            events.publish(DaemonEvent(.sessionStarted))
            #expect(await eventually { clock.deadlines == [.seconds(660) + .milliseconds(1)] })
            // A reload shortens the timeout to 8 s: the deadline moves closer.
            await sessions.apply(idleTimeout: .seconds(8))
            wakeup.wake()
            #expect(await eventually { clock.deadlines == [.seconds(608) + .milliseconds(1)] })
            dates.advance(8.001)
            clock.advance(by: .seconds(8) + .milliseconds(1))
            #expect(await eventually { await sessions.openSessions().isEmpty })
            #expect(try await sessions.view(id: first.id).outcome == "abandoned")
        }
    }
}

/// What housekeeping works on: a session manager with a 60 s idle timeout on a test date clock,
/// a submission queue and a definition cache in `dir`.
private struct HousekeepingParts {
    let storage: SubmissionQueue
    let cache: DefinitionCache
    let dates = TestClock()
    let sessions: SessionManager

    init(in dir: TemporaryDirectory) throws {
        storage = try SubmissionQueue(directory: dir.path + "/queue", logger: Logger(label: "test"))
        cache = try DefinitionCache(directory: dir.path + "/definitions")
        let dates = dates
        sessions = SessionManager(
            journal: MemoryJournal(), definitions: FixtureDefinitions(offline: false), queue: RecordingQueue(),
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(60), deliveryWait: .milliseconds(1)),
            clock: dates.monotonic, now: { dates.now() }, logger: Logger(label: "test"))
    }
}

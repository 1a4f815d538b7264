import ControlAPI
import Foundation
import Logging
import Networking
import SurveyTesting
import Synchronization
import Testing
import WallClockTimer
@testable import SurveyDaemon

/// Every duration the sessions and the erasure judge runs on the monotonic clock: the wall clock
/// stepped a day back or forward (NTP on a kiosk without a real-time clock) while the monotonic
/// one runs steadily changes no timeout and no delay. What survives a restart is re-anchored at
/// the restart.
extension SessionManagerTests {
    @Test(.timeLimit(.minutes(5)), arguments: [-86_400.0, 86_400.0])
    func theIdleTimeoutIgnoresAWallClockStep(step: Double) async throws {
        let m = manager(idleTimeout: .seconds(4))
        let started = try await m.start(StartSessionRequest())
        #expect(try await m.answer(AnswerRequest(values: ["Kim"])).accepted)
        clock.stepWall(step)
        clock.advance(3.5)
        #expect(await m.closeIdleSessions() == 0, "idle 3.5 s of 4 s, whatever the wall clock says")
        #expect(try await m.view(id: started.id).outcome == nil)
        clock.advance(1)
        #expect(await m.closeIdleSessions() == 1, "idle 4.5 s of 4 s")
        #expect(try await m.view(id: started.id).outcome == "abandoned")
    }

    /// A step forward while a respondent answers: the next answer, half a second later, is taken.
    @Test(.timeLimit(.minutes(5))) func aStepForwardDoesNotCloseTheSessionOfARespondentWhoAnswers() async throws {
        let m = manager(idleTimeout: .seconds(60))
        _ = try await m.start(StartSessionRequest())
        #expect(try await m.answer(AnswerRequest(values: ["Kim"])).accepted)
        clock.advance(0.5)
        clock.stepWall(86_400)
        let next = try await m.answer(AnswerRequest(values: ["kim.cs@gmail.com"]))
        #expect(next.accepted, "\(next.message ?? "")")
        #expect(await m.closeIdleSessions() == 0)
    }

    /// Closed sessions are kept their retention on the monotonic clock: a step forward retires
    /// none early (a Pi booted at 2001 and stepped to now would otherwise lose its follow-ups).
    @Test(.timeLimit(.minutes(5))) func theRetentionIgnoresAWallClockStep() async throws {
        let m = manager()
        _ = try await m.start(StartSessionRequest())
        for words in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"]] { _ = try await m.answer(AnswerRequest(values: words)) }
        #expect(try await m.answer(AnswerRequest(values: ["17"])).session.outcome == "no_target")
        clock.stepWall(25 * 365 * 86_400)
        clock.advance(60)
        #expect(try await m.compactJournal(retention: .seconds(86_400)).retired == 0, "closed a minute ago")
        clock.stepWall(-50 * 365 * 86_400)
        clock.advance(86_400)
        #expect(try await m.compactJournal(retention: .seconds(86_400)).retired == 1, "closed a day and a minute ago")
    }

    /// A refused answer keeps the respondent's session alive on the monotonic clock too.
    @Test(.timeLimit(.minutes(5))) func aRefusedAnswerAfterAStepBackKeepsTheSessionAlive() async throws {
        let m = manager(idleTimeout: .seconds(4))
        _ = try await m.start(StartSessionRequest())
        clock.stepWall(-86_400)
        clock.advance(3)
        #expect(try await m.answer(AnswerRequest(values: ["K"])).accepted == false, "too short a name")
        clock.advance(3)
        #expect(await m.closeIdleSessions() == 0, "3 s since the refused answer")
        #expect(try await m.answer(AnswerRequest(values: ["Kim"])).accepted)
    }
}

@Suite(.timeLimit(.minutes(5))) struct WallClockStepErasureTests {
    /// Delivered, then the clock steps: erased after the delay on the monotonic clock, not a day
    /// late (back) and not at once (forward).
    @Test(arguments: [-86_400.0, 86_400.0])
    func deliveredAnswersAreErasedAfterTheDelayWhateverTheWallClockDoes(step: Double) async throws {
        let fixture = try ErasureFixture(delay: .seconds(3))
        defer { fixture.finish() }
        let id = try await fixture.respondent("Corvidlantern", "corvid.lantern@example.com")
        _ = try await fixture.complete(id)
        try await fixture.deliverAll()
        fixture.clock.stepWall(step)
        fixture.clock.advance(2.5)
        var report = try await fixture.erasure.erase(all: false)
        #expect(report.sessions == 0 && report.queue == nil, "2.5 s of 3 s: \(report)")
        #expect(!fixture.found(["Corvidlantern"]).isEmpty)
        let waiting = await fixture.erasure.waiting()
        #expect(waiting.longest == .seconds(2.5), "status and the gauge say how long, on the monotonic clock")
        #expect(await fixture.erasure.nextRound() == .seconds(1), "0.5 s are left; the service waits at least 1 s")
        fixture.clock.advance(0.5)
        report = try await fixture.erasure.erase(all: false)
        #expect(report.sessions == 1 && report.queue != nil, "\(report)")
        #expect(fixture.found(["Corvidlantern", "corvid.lantern@example.com"]).isEmpty)
    }

    /// Stepped back a day while the daemon was down: the answers are erased the delay after the
    /// restart, not a day later; the queue's bodies too.
    @Test func aWaitThatBeganBeforeARestartEndsAtMostTheDelayAfterIt() async throws {
        let fixture = try ErasureFixture(delay: .seconds(600))
        defer { fixture.finish() }
        let id = try await fixture.respondent("Ploverbasin", "plover.basin@example.com")
        _ = try await fixture.complete(id)
        try await fixture.deliverAll()
        fixture.clock.advance(100)
        fixture.clock.stepWall(-86_400)
        try await fixture.restart()
        fixture.clock.advance(599)
        #expect(try await fixture.erasure.erase(all: false).sessions == 0, "599 s after the restart of 600")
        fixture.clock.advance(1)
        let report = try await fixture.erasure.erase(all: false)
        #expect(report.sessions == 1 && report.queue != nil, "\(report)")
        #expect(fixture.found(["Ploverbasin", "plover.basin@example.com"]).isEmpty)
    }

    /// A respondent answers, NTP steps the clock a day forward (the daemon notices), and the
    /// daemon restarts: the respondent, idle a few seconds, goes on; without the step being
    /// journaled the restart would count a day of idleness and abandon them.
    @Test(arguments: [false, true])
    func aStepForwardNoticedBeforeARestartKeepsTheRespondent(noticed: Bool) async throws {
        let fixture = try ErasureFixture()
        defer { fixture.finish() }
        let id = try await fixture.respondent("Kestrelmoor", "kestrel.moor@example.com", answers: 2)
        fixture.clock.advance(5)
        fixture.clock.stepWall(86_400)
        if noticed { await fixture.manager.wallClockStepped() }
        fixture.clock.advance(5)
        try await fixture.restart()
        let closed = await fixture.manager.closeIdleSessions()
        if noticed {
            #expect(closed == 0, "idle 10 s of 900 s")
            #expect(try await fixture.manager.view(id: id).outcome == nil)
            fixture.clock.advance(891)
            #expect(await fixture.manager.closeIdleSessions() == 1, "idle 901 s since the last answer")
        } else {
            #expect(closed == 1, "what the restart makes of an unnoticed step: a day of idleness")
        }
    }

    /// A respondent who walked away before a restart, the clock stepped back meanwhile: the
    /// session is closed the idle timeout after the restart at the latest.
    @Test func anOpenSessionRestoredAfterAStepBackIsClosedInTime() async throws {
        let fixture = try ErasureFixture()
        defer { fixture.finish() }
        let id = try await fixture.respondent("Wrenfallow", "wren.fallow@example.com", answers: 2)
        fixture.clock.stepWall(-86_400)
        try await fixture.restart()
        fixture.clock.advance(899)
        #expect(await fixture.manager.closeIdleSessions() == 0, "899 s after the restart of 900")
        fixture.clock.advance(2)
        #expect(await fixture.manager.closeIdleSessions() == 1)
        #expect(try await fixture.manager.view(id: id).outcome == "abandoned")
    }
}

/// Steps of the wall clock against the monotonic one: measured with their sign, logged once,
/// counted; a drift below the threshold is none.
@Suite(.timeLimit(.minutes(5))) struct WallClockWatcherTests {
    @Test func theMeterMeasuresStepsAndIgnoresDrift() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var meter = WallClockStepMeter(threshold: .seconds(5), first: .init(wall: start, elapsed: .seconds(10)))
        #expect(meter.read(.init(wall: start + 60, elapsed: .seconds(70))) == nil, "both ran a minute")
        #expect(meter.read(.init(wall: start + 62, elapsed: .seconds(70))) == nil, "2 s: disciplined, not stepped")
        #expect(meter.read(.init(wall: start + 62 - 86_400, elapsed: .seconds(70))) == .init(seconds: -86_400))
        #expect(meter.read(.init(wall: start + 63, elapsed: .seconds(71))) == .init(seconds: 86_400))
        #expect(meter.read(.init(wall: start + 65, elapsed: .seconds(71))) == nil, "the 2 s drift before did not add up")
    }

    @Test func aStepIsLoggedOnceWithItsSizeAndCounted() async throws {
        let clock = TestClock()
        let lines = ErasureLogTests.Lines()
        let logger = Logger(label: "surveyd") { label in
            DaemonLogHandler(label: label, journal: false, level: DaemonLogLevel(.info), metadataProvider: nil) { line in lines.lines.withLock { $0.append(line) } }
        }
        let exporter = MetricsExporter()
        let watcher = WallClockWatcher(clock: clock.monotonic, wall: { clock.now() }, logger: logger, metrics: exporter.metrics)
        clock.advance(30)
        #expect(watcher.clockWasSet() == nil, "set to the time it had: no step")
        clock.stepWall(-86_400)
        #expect(watcher.clockWasSet()?.seconds == -86_400)
        #expect(watcher.clockWasSet() == nil, "logged once")
        clock.stepWall(25 * 365 * 86_400)
        #expect(watcher.clockWasSet()?.forward == true)
        let logged = lines.all.filter { $0.contains("wall clock was stepped") }
        #expect(logged.count == 2, "\(lines.all)")
        #expect(logged.first?.contains("back by 1 d (86400 s)") == true, "\(logged)")
        #expect(logged.last?.contains("forward by 9125 d") == true, "\(logged)")
        let text = String(decoding: exporter.exposition(MetricsExporter.Snapshot(counts: nil, now: Date(), connectivity: .online, journals: [], ready: true)), as: UTF8.self)
        #expect(text.contains(#"surveyd_wall_clock_steps_total{direction="back"} 1"#), "\(text)")
        #expect(text.contains(#"surveyd_wall_clock_steps_total{direction="forward"} 1"#), "\(text)")
    }

    /// The thread's path: the kernel says the clock was set (here an injected wait says so once,
    /// after the test stepped its wall clock back a day, then waits on the real timerfd), the step
    /// is logged and counted, and the thread ends when the service is stopped.
    @Test func theThreadReportsAStepWhenTheClockIsSetAndEndsWhenStopped() async throws {
        let clock = TestClock()
        let exporter = MetricsExporter()
        let calls = Mutex(0)
        let watcher = WallClockWatcher(clock: clock.monotonic, wall: { clock.now() }, logger: Logger(label: "test"), metrics: exporter.metrics) { timer, stop in
            let first = calls.withLock { calls in
                calls += 1
                return calls == 1
            }
            guard first else { return wall_clock_timer_wait(timer, stop) }
            clock.stepWall(-86_400)
            return 1
        }
        try #require(watcher.start(), "a timerfd can be made on Linux")
        let counted = await eventually {
            String(decoding: exporter.exposition(MetricsExporter.Snapshot(counts: nil, now: Date(), connectivity: .online, journals: [], ready: true)), as: UTF8.self)
                .contains(#"surveyd_wall_clock_steps_total{direction="back"} 1"#)
        }
        #expect(counted, "the step back was counted")
        #expect(await eventually { calls.withLock { $0 } == 2 }, "the thread waits again after a step")
        #expect(watcher.threadRunning)
        await watcher.stop()
        #expect(!watcher.threadRunning)
    }

    /// A step is told to the daemon (which then retries at once what a clock not set held back:
    /// a server certificate it could not check); a set that is no step is not.
    @Test func aStepIsToldToTheDaemon() {
        let clock = TestClock()
        let steps = Mutex(0)
        let watcher = WallClockWatcher(clock: clock.monotonic, wall: { clock.now() }, logger: Logger(label: "test"), metrics: .disabled, onStep: { steps.withLock { $0 += 1 } })
        clock.advance(5)
        watcher.clockWasSet()
        #expect(steps.withLock { $0 } == 0)
        clock.stepWall(20 * 365 * 86_400)
        watcher.clockWasSet()
        #expect(steps.withLock { $0 } == 1)
    }

    /// The real watcher: its thread waits on the kernel's timerfd and ends when it is stopped.
    @Test func theThreadStartsAndEndsWithTheService() async throws {
        let watcher = WallClockWatcher(logger: Logger(label: "test"), metrics: .disabled)
        try #require(watcher.start(), "a timerfd can be made on Linux")
        #expect(watcher.threadRunning)
        await watcher.stop()
        #expect(!watcher.threadRunning)
        await watcher.stop()
    }
}

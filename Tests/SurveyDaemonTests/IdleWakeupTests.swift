import ControlAPI
import Foundation
import Logging
import MockServer
@testable import SurveyDaemon
import SurveyTesting
import Testing

/// An idle daemon sleeps: every timer it arms on its injected clock is one of its documented
/// sources (doc/operations.md, "An idle daemon"), never a poll. Checked through the timers armed
/// on a recording clock, not by timing.
@Suite(.timeLimit(.minutes(5)), .serialized) struct IdleWakeupTests {
    /// A daemon with its kiosk pages, a token file, a reachable server and systemd's watchdog
    /// (30 s), doing nothing.
    func idleDaemon(in dir: TemporaryDirectory, server: Int, idleTimeout: Double? = nil, clock: RecordingClock, quiet: Logger) async throws -> Daemon {
        try "token".write(toFile: dir.appending("token").path, atomically: true, encoding: .utf8)
        let configuration = try await InProcessDaemon.configuration(in: dir, serverURL: "http://127.0.0.1:\(server)") { flags in
            flags[\.kioskListen] = "127.0.0.1:0"
            flags[\.tokenFile] = dir.appending("token").path
            if let idleTimeout { flags[\.idleSessionTimeoutSeconds] = idleTimeout }
        }
        return try await Daemon(configuration: configuration, version: "test", logger: quiet, clock: clock)
    }

    /// Runs `daemon` as systemd would, with a watchdog of 30 s, until `body` returns.
    func running(_ daemon: Daemon, _ body: (RecordingNotifier) async throws -> Void) async throws {
        let notifier = RecordingNotifier()
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        let running = Task {
            defer { readyContinuation.finish() }
            try await daemon.run(signals: [], systemd: SystemdContext(notifier: notifier, watchdogInterval: .seconds(30))) { _ in readyContinuation.yield() }
        }
        var iterator = ready.makeAsyncIterator()
        _ = await iterator.next()
        do {
            try await body(notifier)
        } catch {
            running.cancel()
            _ = await running.result
            throw error
        }
        running.cancel()
        _ = await running.result
    }

    /// The sleep until the next `WATCHDOG=1`: half the 30 s, less the time since the last (which
    /// a loaded machine can make seconds).
    static func isPing(_ length: Duration) -> Bool {
        length > .zero && length <= .seconds(15)
    }

    /// An idle daemon (`idleDaemon`) over a mock server in process, run as systemd would while
    /// `body` looks at it and its clock; everything stopped and removed however `body` ends.
    func withIdleDaemon(idleTimeout: Double? = nil, _ body: (Daemon, RecordingClock, RecordingNotifier) async throws -> Void) async throws {
        let dir = try TemporaryDirectory(prefix: "idle")
        defer { dir.remove() }
        var quiet = Logger(label: "idle")
        quiet.logLevel = .critical
        let mock = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: PackagePaths.mock), logger: quiet)
        let clock = RecordingClock()
        do {
            let daemon = try await idleDaemon(in: dir, server: mock.port, idleTimeout: idleTimeout, clock: clock, quiet: quiet)
            do {
                try await running(daemon) { notifier in try await body(daemon, clock, notifier) }
            } catch {
                await daemon.close()
                throw error
            }
        } catch {
            try await mock.stop()
            throw error
        }
        try await mock.stop()
    }

    @Test func anIdleDaemonArmsOnlyTheWatchdogAndTheCompaction() async throws {
        try await withIdleDaemon { _, clock, notifier in
            let sinceReady = clock.count
            #expect(await eventually { notifier.all.contains("WATCHDOG=1") })
            // Settled: the next ping, 15 s (half the watchdog's 30 s) away, and the session
            // journal's compaction 600 s after the start; nothing else.
            #expect(await eventually {
                let waiting = clock.waiting
                return waiting.count == 2 && Self.isPing(waiting[0]) && waiting[1] > .seconds(590) && waiting[1] <= .seconds(600)
            }, "\(clock.waiting)")
            // However late a sleep was asked for on a loaded machine (a ping's is 15 s less the
            // time since the last one), the timers' deadlines since ready are 15 s apart or more.
            #expect((clock.shortestPeriod(after: sinceReady) ?? .seconds(15)) >= .seconds(14), "no timer with a shorter period since ready: \(clock.requested(after: sinceReady))")
        }
    }

    /// A respondent walked away mid-survey: the daemon's next wake-up of its own is the
    /// session's idle deadline (with the watchdog's pings beside it).
    @Test func withOneIdleSessionTheNextWakeupIsItsIdleDeadline() async throws {
        try await withIdleDaemon(idleTimeout: 300) { daemon, clock, _ in
            let session = try await daemon.backend.startSession(StartSessionRequest(typeId: "common", lang: "en"))
            _ = try await daemon.backend.answer(AnswerRequest(session: session.id, values: ["Kim Minsu"]))
            // Settled: the ping, and housekeeping's sleep until the idle deadline (300 s after
            // the answer, and a millisecond; the compaction 600 s after the start comes
            // later); nothing else.
            #expect(await eventually {
                let waiting = clock.waiting
                return waiting.count == 2 && Self.isPing(waiting[0])
                    && waiting[1] > .seconds(295) && waiting[1] <= .seconds(300) + .milliseconds(1)
            }, "\(clock.waiting)")
            #expect(try await daemon.backend.session(id: session.id).state == "asking")
        }
    }
}

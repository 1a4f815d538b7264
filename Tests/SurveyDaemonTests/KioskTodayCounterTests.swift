import ControlAPI
import Entities
import Foundation
import Kiosk
import Logging
import ServiceLifecycle
import SurveyTesting
import Synchronization
import Testing
@testable import SurveyDaemon

/// The staff screen's "Today": counted from the daemon's events, kept across a restart, started
/// again at local midnight, and holding nothing of a respondent.
@Suite(.timeLimit(.minutes(5))) struct KioskTodayCounterTests {
    final class WallClock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var date: Date { now.withLock { $0 } }
    }

    @Test func outcomesAreCountedKeptAndStartedAgainAtMidnight() async throws {
        let dir = try TemporaryDirectory(prefix: "today")
        defer { dir.remove() }
        let wall = WallClock()
        let events = DaemonEvents()
        let counter = KioskTodayCounter(directory: dir.path, events: events, logger: Logger(label: "today"), wallNow: { wall.date })
        let session = "0f6c5e2a-8a3b-4f1e-9d2c-7b5a4e3d2c1b"
        for _ in 1...3 { events.publish(DaemonEvent(.sessionStarted, session: session, stage: "common")) }
        for outcome in ["thanks", "queued", "no_target", "abandoned"] { events.publish(DaemonEvent(.sessionClosed, session: session, outcome: outcome)) }
        events.publish(DaemonEvent(.answerAccepted, session: session, question: "q1"))
        let expected = StaffGlance.Today(started: 3, completed: 2, screenedOut: 1, abandoned: 1)
        // Counted as they were published; written once the writer has caught up.
        #expect(counter.today == expected)
        await counter.flushed()

        let file = try String(contentsOfFile: dir.appending(KioskTodayCounter.fileName).path, encoding: .utf8)
        #expect(!file.contains(session) && !file.contains("q1") && !file.contains("common"))
        let restarted = KioskTodayCounter(directory: dir.path, events: DaemonEvents(), logger: Logger(label: "today"), wallNow: { wall.date })
        #expect(restarted.today == counter.today)
        wall.now.withLock { $0 += 86_400 }
        #expect(restarted.today == .init(started: 0, completed: 0, screenedOut: 0, abandoned: 0))
    }

    /// Sessions close while the daemon stops: every close is counted and in the file after a
    /// restart, whether it came before the stop began, during it, or after the service ended
    /// (the daemon's close waits for the counter's last write, as this test does).
    @Test func closesRacingTheStopAreAllKept() async throws {
        let dir = try TemporaryDirectory(prefix: "today-stop")
        defer { dir.remove() }
        let wall = WallClock()
        let events = DaemonEvents()
        let logger = Logger(label: "today")
        let counter = KioskTodayCounter(directory: dir.path, events: events, logger: logger, wallNow: { wall.date })
        let group = ServiceGroup(configuration: .init(services: [.init(service: counter)], logger: logger))
        let running = Task { try await group.run() }
        let publishers = 4
        let each = 250
        let (halfway, reached) = AsyncStream<Void>.makeStream()
        let closing = Task {
            await withTaskGroup(of: Void.self) { tasks in
                for publisher in 0..<publishers {
                    tasks.addTask {
                        for n in 0..<each {
                            if publisher == 0 && n == each / 2 { reached.yield() }
                            events.publish(DaemonEvent(.sessionClosed, session: "s\(publisher)-\(n)", outcome: "thanks"))
                            if n % 16 == 0 { await Task.yield() }
                        }
                    }
                }
            }
        }
        for await _ in halfway { break }
        // The stop races the closes: the service group shuts down and the event streams end, as
        // the daemon's ShutdownNotice ends them.
        await group.triggerGracefulShutdown()
        events.finish()
        try await running.value
        await closing.value
        await counter.flushed()

        let restarted = KioskTodayCounter(directory: dir.path, events: DaemonEvents(), logger: logger, wallNow: { wall.date })
        #expect(restarted.today.completed == publishers * each, "\(restarted.today)")
    }
}

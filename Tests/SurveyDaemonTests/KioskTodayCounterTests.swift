import ControlAPI
import Foundation
import Kiosk
import Logging
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
        let run = Task { try await counter.run() }
        // The service subscribes when it runs: wait for it.
        for _ in 0..<500 where events.subscriberCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(events.subscriberCount == 1)
        let session = "0f6c5e2a-8a3b-4f1e-9d2c-7b5a4e3d2c1b"
        for _ in 1...3 { events.publish(DaemonEvent(.sessionStarted, session: session, stage: "common")) }
        for outcome in ["thanks", "queued", "no_target", "abandoned"] { events.publish(DaemonEvent(.sessionClosed, session: session, outcome: outcome)) }
        events.publish(DaemonEvent(.answerAccepted, session: session, question: "q1"))
        let expected = StaffGlance.Today(started: 3, completed: 2, screenedOut: 1, abandoned: 1)
        for _ in 0..<500 where counter.today != expected { try await Task.sleep(for: .milliseconds(10)) }
        events.finish()
        // Outside a service group, the service waits for a shutdown that never comes: cancel it.
        run.cancel()
        try await run.value
        #expect(counter.today == expected)

        let file = try String(contentsOfFile: dir.appending(KioskTodayCounter.fileName).path, encoding: .utf8)
        #expect(!file.contains(session) && !file.contains("q1") && !file.contains("common"))
        let restarted = KioskTodayCounter(directory: dir.path, events: DaemonEvents(), logger: Logger(label: "today"), wallNow: { wall.date })
        #expect(restarted.today == counter.today)
        wall.now.withLock { $0 += 86_400 }
        #expect(restarted.today == .init(started: 0, completed: 0, screenedOut: 0, abandoned: 0))
    }
}

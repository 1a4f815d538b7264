import ControlAPI
import Entities
import Foundation
import Kiosk
import Logging
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// The staff screen's "Today" counts the completed stages that raised quality flags, and each
/// flag, from the `stage_queued` events: counts only.
@Suite(.timeLimit(.minutes(5))) struct KioskTodayFlagsTests {
    @Test func flaggedStagesAreCountedByFlag() throws {
        let dir = try TemporaryDirectory(prefix: "today-flags")
        defer { dir.remove() }
        let counter = KioskTodayCounter(directory: dir.path, events: DaemonEvents(), logger: Logger(label: "today"), wallNow: { Date(timeIntervalSince1970: 1_800_000_000) })
        func queued(_ flags: [String]?) -> DaemonEvent {
            var event = DaemonEvent(.stageQueued, session: "0f6c5e2a-8a3b-4f1e-9d2c-7b5a4e3d2c1b", stage: "common", key: "k")
            event.flags = flags
            return event
        }
        #expect(counter.count(queued(nil)) == nil, "quality not judged: nothing to count")
        #expect(counter.count(queued([])) == nil, "no flag raised")
        #expect(counter.count(queued(["speeding", "burst"])) != nil)
        #expect(counter.count(queued(["speeding"])) != nil)
        #expect(counter.today.flagged == 2)
        #expect(counter.today.flags == ["speeding": 2, "burst": 1])
        // A record from before flags were counted reads with none.
        let old = try JSONDecoder().decode(KioskTodayCounter.Record.self, from: Data(#"{"day":"2027-01-15","started":4,"completed":3,"screenedOut":0,"abandoned":1}"#.utf8))
        #expect(old.flagged == nil && old.flags == nil)
    }

    /// `surveyctl status` shows the same counts as the staff screen, declines included, and the
    /// JSON of a daemon that counted no flags or declines reads as zeros.
    @Test func statusShowsTheStaffScreensCounts() throws {
        let today = KioskTodayCounts(started: 9, completed: 6, screenedOut: 1, abandoned: 1, flagged: 2, flags: ["speeding": 2], declined: 3)
        let view = KioskStatusView(state: KioskStatusView.inService, outOfService: nil, survey: "common",
                                   staffPin: .init(configured: false, wrongInARow: 0, lockedUntil: nil), today: today)
        let line = try #require(view.lines.first { $0.contains("today:") })
        #expect(line == "  today: started 9, completed 6, screened out 1, abandoned 1, declined consent 3; flagged 2 (speeding 2)")
        let decoded = try JSONDecoder().decode(KioskStatusView.self, from: JSONEncoder().encode(view))
        #expect(decoded.today == today)
        let older = try JSONDecoder().decode(KioskTodayCounts.self, from: Data(#"{"started":4,"completed":3,"screenedOut":0,"abandoned":1}"#.utf8))
        #expect(older == KioskTodayCounts(started: 4, completed: 3, screenedOut: 0, abandoned: 1))
    }
}

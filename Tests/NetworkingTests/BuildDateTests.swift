import Foundation
import SurveyTesting
import Testing
@testable import Networking

/// This build's date (a wall clock earlier than it was never set) stays honest: never later than
/// the newest commit, which would take a right clock for one never set, and at most 120 days
/// older, which would recognise fewer unset clocks. When this fails, set `BuildDate.day` to the
/// date of the newest commit.
@Suite(.timeLimit(.minutes(2))) struct BuildDateTests {
    @Test func theDateIsTheDayItNames() {
        #expect(BuildDate.daysFromCivil(year: 1970, month: 1, day: 1) == 0)
        #expect(BuildDate.daysFromCivil(year: 2026, month: 11, day: 28) == 20_785)
        #expect(BuildDate.daysFromCivil(year: 2000, month: 3, day: 1) == 11_017)
        let parts = BuildDate.day.split(separator: "-").compactMap { Int($0) }
        #expect(BuildDate.date.timeIntervalSince1970 == Double(BuildDate.daysFromCivil(year: parts[0], month: parts[1], day: parts[2]) * 86_400))
    }

    @Test func theDateIsNeitherLaterThanTheNewestCommitNorLongBeforeIt() async throws {
        let log = try await runProcess(URL(fileURLWithPath: "/usr/bin/git"), ["-C", PackagePaths.root.path, "log", "-1", "--format=%ct"], deadline: .seconds(30))
        try #require(log.status == 0, "the build date is checked against git history: \(log.stderr)")
        let newest = try #require(Double(log.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(log.stdout)")
        let day = 86_400.0
        #expect(BuildDate.date.timeIntervalSince1970 <= newest, "BuildDate.day \(BuildDate.day) is later than the newest commit: a right clock would be taken for one never set")
        #expect(BuildDate.date.timeIntervalSince1970 >= newest - 120 * day, "BuildDate.day \(BuildDate.day) is more than 120 days older than the newest commit: set it to the newest commit's date")
    }
}

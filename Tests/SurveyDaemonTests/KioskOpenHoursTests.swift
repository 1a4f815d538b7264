import Foundation
import Testing
@testable import SurveyDaemon

/// `kioskOpenHours`: the parser, each refusal with its position and reason, and the hours on a
/// wall clock in a given time zone.
@Suite(.timeLimit(.minutes(5))) struct KioskOpenHoursTests {
    static let seoul = TimeZone(identifier: "Asia/Seoul")!

    /// A wall-clock moment in Seoul: 2026-11-23 is a Monday.
    static func at(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = seoul
        return calendar.date(from: DateComponents(year: 2026, month: 11, day: day, hour: hour, minute: minute))!
    }

    @Test func weekdaysAndSaturday() throws {
        let hours = try KioskOpenHours(parsing: "Mo-Fr 09:00-18:00, Sa 10:00-14:00")
        #expect(hours.isOpen(at: Self.at(23, 9), timeZone: Self.seoul))       // Monday 09:00
        #expect(!hours.isOpen(at: Self.at(23, 8, 59), timeZone: Self.seoul))
        #expect(!hours.isOpen(at: Self.at(27, 18), timeZone: Self.seoul))     // Friday 18:00: closed
        #expect(hours.isOpen(at: Self.at(28, 13, 59), timeZone: Self.seoul))  // Saturday
        #expect(!hours.isOpen(at: Self.at(28, 14), timeZone: Self.seoul))
        #expect(!hours.isOpen(at: Self.at(29, 12), timeZone: Self.seoul))     // Sunday
        // The same moment in another zone is another hour of another day.
        #expect(!hours.isOpen(at: Self.at(23, 9), timeZone: TimeZone(identifier: "UTC")!))
    }

    @Test func severalRangesADayAndDaysAcrossTheWeekEnd() throws {
        let hours = try KioskOpenHours(parsing: "Sa-Mo 09:00-12:00 13:00-24:00")
        #expect(hours.isOpen(at: Self.at(29, 23, 59), timeZone: Self.seoul))  // Sunday
        #expect(!hours.isOpen(at: Self.at(23, 12, 30), timeZone: Self.seoul)) // Monday lunch
        #expect(hours.isOpen(at: Self.at(23, 13), timeZone: Self.seoul))
        #expect(!hours.isOpen(at: Self.at(24, 10), timeZone: Self.seoul))     // Tuesday
    }

    @Test(arguments: [
        ("", 1, "the end", "expected a day"),
        ("Mon 09:00-18:00", 3, "n", "expected a space and a time range"),
        ("Mo-Xx 09:00-18:00", 4, "X", "expected a day: Mo, Tu, We, Th, Fr, Sa or Su"),
        ("Mo 9:00-18:00", 5, ":", "expected a time as HH:MM"),
        ("Mo 09:00-25:00", 10, "2", "25:00 is not a time of day; use 00:00 to 24:00"),
        ("Mo 18:00-09:00", 4, "1", "the closing time is not after the opening time"),
        ("Mo 09:00 18:00", 9, " ", "expected - and the closing time"),
        ("Mo 09:00-18:00; Tu 09:00-18:00", 15, ";", "expected a comma before the next days"),
        ("Mo 09:00-18:00,", 16, "the end", "expected a day"),
    ])
    func aRefusalNamesThePositionAndTheReason(text: String, position: Int, found: String, reason: String) {
        #expect {
            try KioskOpenHours(parsing: text)
        } throws: { error in
            guard let error = error as? KioskOpenHoursError else { return false }
            return error.position == position && error.found == found && error.reason.contains(reason)
                && error.message.hasPrefix("at character \(position) ")
        }
    }

    @Test func theSettingsCheckSaysWhere() {
        #expect(DaemonSetting.checkOpenHours("Mo-Fr 09:00-18:00") == nil)
        #expect(DaemonSetting.checkOpenHours("Mo-Fr 09:00-18:60")?.contains("at character 13 (\"1\"): 18:60 is not a time of day") == true)
    }
}

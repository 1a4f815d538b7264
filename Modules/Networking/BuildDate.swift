#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The date this build's source was last changed, carried by the build: a wall clock earlier than
/// it was never set (a Raspberry Pi boots with the time it last saved, or 1970, until NTP sets it).
///
/// Checked in, not generated, so that a build is reproducible. `BuildDateTests` keeps it honest:
/// it is never later than the newest commit (a date in the future would take a right clock for an
/// unset one) and at most 120 days older than it (an old date recognises fewer unset clocks).
/// When that test fails, set `day` to the date of the newest commit.
public enum BuildDate {
    /// `YYYY-MM-DD`, UTC.
    public static let day = "2026-11-28"

    /// The start of ``day`` (UTC).
    public static let date: Date = {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        precondition(parts.count == 3, "BuildDate.day must be YYYY-MM-DD")
        return Date(timeIntervalSince1970: Double(daysFromCivil(year: parts[0], month: parts[1], day: parts[2]) * 86_400))
    }()

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

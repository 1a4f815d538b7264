#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `kioskOpenHours`: when the kiosk takes respondents, in the machine's time zone, e.g.
/// `Mo-Fr 09:00-18:00, Sa 10:00-14:00` or `Mo-Fr 09:00-12:00 13:00-17:30`. Rules are separated by
/// commas; each is a day (`Mo`, `Tu`, `We`, `Th`, `Fr`, `Sa`, `Su`) or a range of days, then one or
/// more times `HH:MM-HH:MM` (from 00:00 to 24:00, the end after the start) separated by spaces.
/// Outside them the kiosk shows "closed". Read on the wall clock at each look, so that a stepped
/// clock is followed.
struct KioskOpenHours: Sendable, Hashable {
    /// Open minutes of the day, by weekday (1 = Sunday … 7 = Saturday, as `Calendar` counts).
    private(set) var minutes: [Int: [Range<Int>]] = [:]

    static let days = ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"]

    /// Whether `date` falls in the hours, in `timeZone`.
    func isOpen(at date: Date, timeZone: TimeZone = .current) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        guard let weekday = parts.weekday else { return false }
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        return minutes[weekday, default: []].contains { $0.contains(minute) }
    }

    /// Reads the hours; a refusal names the character where it went wrong (1-based) and why.
    init(parsing text: String) throws(KioskOpenHoursError) {
        var scanner = Scanner(Array(text))
        repeat {
            scanner.skipSpaces()
            let (first, last) = try scanner.dayRange()
            var ranges: [Range<Int>] = []
            guard scanner.skipSpaces() else {
                throw scanner.error("expected a space and a time range such as 09:00-18:00 after the days")
            }
            repeat {
                ranges.append(try scanner.timeRange())
                scanner.skipSpaces()
            } while scanner.peek?.isNumber == true
            var day = first
            while true {
                minutes[day + 1, default: []] += ranges
                if day == last { break }
                day = (day + 1) % 7
            }
            scanner.skipSpaces()
            if scanner.peek == nil { break }
            guard scanner.take(",") else { throw scanner.error("expected a comma before the next days, or the end") }
        } while true
    }

    /// Reads the text character by character, remembering where it is for the refusals.
    private struct Scanner {
        let characters: [Character]
        var index = 0
        init(_ characters: [Character]) { self.characters = characters }

        var peek: Character? { index < characters.count ? characters[index] : nil }

        func error(_ reason: String) -> KioskOpenHoursError {
            KioskOpenHoursError(position: index + 1, found: peek.map(String.init) ?? "the end", reason: reason)
        }

        @discardableResult
        mutating func skipSpaces() -> Bool {
            let start = index
            while peek == " " { index += 1 }
            return index > start
        }

        mutating func take(_ character: Character) -> Bool {
            guard peek == character else { return false }
            index += 1
            return true
        }

        mutating func day() throws(KioskOpenHoursError) -> Int {
            guard index + 1 < characters.count, let day = KioskOpenHours.days.firstIndex(of: String(characters[index...index + 1])) else {
                throw error("expected a day: Mo, Tu, We, Th, Fr, Sa or Su")
            }
            index += 2
            return day
        }

        mutating func dayRange() throws(KioskOpenHoursError) -> (Int, Int) {
            let first = try day()
            guard take("-") else { return (first, first) }
            return (first, try day())
        }

        mutating func time() throws(KioskOpenHoursError) -> Int {
            let start = index
            var digits: [Int] = []
            for expected in ["d", "d", ":", "d", "d"] {
                if expected == ":" {
                    guard take(":") else { throw error("expected a time as HH:MM, e.g. 09:00") }
                } else {
                    guard let value = peek?.wholeNumberValue, peek?.isASCII == true else { throw error("expected a time as HH:MM, e.g. 09:00") }
                    digits.append(value)
                    index += 1
                }
            }
            let hour = digits[0] * 10 + digits[1]
            let minute = digits[2] * 10 + digits[3]
            guard minute < 60, hour < 24 || (hour == 24 && minute == 0) else {
                index = start
                throw error("\(String(characters[start..<start + 5])) is not a time of day; use 00:00 to 24:00")
            }
            return hour * 60 + minute
        }

        mutating func timeRange() throws(KioskOpenHoursError) -> Range<Int> {
            let start = index
            let from = try time()
            guard take("-") else { throw error("expected - and the closing time, e.g. 09:00-18:00") }
            let to = try time()
            guard from < to else {
                index = start
                throw error("the closing time is not after the opening time; a range cannot pass midnight (write Mo 22:00-24:00, Tu 00:00-02:00)")
            }
            return from..<to
        }
    }
}

/// Opening hours that cannot be read: where (1-based character) and why.
struct KioskOpenHoursError: Error, Sendable, Hashable, CustomStringConvertible {
    var position: Int
    var found: String
    var reason: String
    var message: String { "at character \(position) (\(found == "the end" ? found : "\"\(found)\"")): \(reason)" }
    var description: String { message }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KioskOpenHours {
    /// The first moment after `date` at which ``isOpen(at:timeZone:)`` says something else than
    /// at `date` (the kiosk opens or closes), within the next eight days; nil when the hours never
    /// change (open all week, or never). Two ranges that touch (`09:00-12:00 12:00-13:00`) make
    /// no boundary where they meet.
    func nextBoundary(after date: Date, timeZone: TimeZone = .current) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let openNow = isOpen(at: date, timeZone: timeZone)
        let today = calendar.startOfDay(for: date)
        var candidates: [Date] = []
        for offset in 0...8 {
            guard let day = calendar.date(byAdding: .day, value: offset, to: today) else { continue }
            let weekday = calendar.component(.weekday, from: day)
            for range in minutes[weekday, default: []] {
                for minute in [range.lowerBound, range.upperBound] {
                    let moment = minute == 24 * 60
                        ? calendar.date(byAdding: .day, value: 1, to: day)
                        : calendar.date(bySettingHour: minute / 60, minute: minute % 60, second: 0, of: day)
                    if let moment, moment > date { candidates.append(moment) }
                }
            }
        }
        return candidates.sorted().first { isOpen(at: $0, timeZone: timeZone) != openNow }
    }
}

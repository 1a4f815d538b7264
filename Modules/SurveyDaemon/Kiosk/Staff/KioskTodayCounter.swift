import ControlAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Kiosk
import Logging
import ServiceLifecycle
import Synchronization

/// The staff screen's "Today": surveys started, completed, screened out and abandoned since local
/// midnight, counted from the daemon's events into a small record of its own
/// (`STATE/kiosk-today.json`: the day and four counts, nothing of a respondent), so that the
/// counts survive a restart, which erases sessions and resets the metrics.
final class KioskTodayCounter: Service, Sendable {
    struct Record: Codable, Sendable, Hashable {
        /// The local day counted, `2026-11-28`.
        var day: String
        var started = 0
        var completed = 0
        var screenedOut = 0
        var abandoned = 0
        /// Respondents who declined the consent notice (absent from a record written before the
        /// kiosk asked for consent).
        var declined: Int? = nil
    }

    static let fileName = "kiosk-today.json"
    let directory: String
    let events: DaemonEvents
    let wallNow: @Sendable () -> Date
    let logger: Logger
    let record: Mutex<Record>

    init(directory: String, events: DaemonEvents, logger: Logger, wallNow: @escaping @Sendable () -> Date = { Date() }) {
        self.directory = directory
        self.events = events
        self.wallNow = wallNow
        self.logger = logger
        let path = directory + "/" + Self.fileName
        let kept = FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(Record.self, from: $0) }
        record = Mutex(kept ?? Record(day: Self.day(wallNow())))
    }

    /// `2026-11-28` for `date` in the machine's time zone.
    static func day(_ date: Date, timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        func two(_ n: Int?) -> String { (n ?? 0) < 10 ? "0\(n ?? 0)" : "\(n ?? 0)" }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day))"
    }

    /// The counts of today; zeros when nothing was counted since midnight.
    var today: StaffGlance.Today {
        let now = Self.day(wallNow())
        return record.withLock { record in
            record.day == now
                ? StaffGlance.Today(started: record.started, completed: record.completed, screenedOut: record.screenedOut, abandoned: record.abandoned, declined: record.declined ?? 0)
                : StaffGlance.Today(started: 0, completed: 0, screenedOut: 0, abandoned: 0)
        }
    }

    /// Counts one event; returns whether it changed the counts.
    func count(_ event: DaemonEvent) -> Record? {
        let now = Self.day(wallNow())
        return record.withLock { record -> Record? in
            if record.day != now { record = Record(day: now) }
            switch (event.type, event.outcome) {
            case (.sessionStarted, _): record.started += 1
            case (.sessionClosed, "thanks"?), (.sessionClosed, "queued"?): record.completed += 1
            case (.sessionClosed, "no_target"?): record.screenedOut += 1
            case (.sessionClosed, "abandoned"?): record.abandoned += 1
            case (.consentDeclined, _): record.declined = (record.declined ?? 0) + 1
            default: return nil
            }
            return record
        }
    }

    func run() async throws {
        for await event in events.subscribe().cancelOnGracefulShutdown() {
            guard let changed = count(event) else { continue }
            do {
                let bytes = Array(try JSONEncoder().encode(changed))
                try KioskStaffRecord.replace(directory + "/" + Self.fileName, with: bytes, directory: directory)
            } catch {
                logger.warning("kiosk: today's counts not kept: \(error)")
            }
        }
        // The events end as soon as the daemon starts stopping (ShutdownNotice ends every
        // stream); a service must not return before its own turn to stop comes.
        try? await gracefulShutdown()
    }
}

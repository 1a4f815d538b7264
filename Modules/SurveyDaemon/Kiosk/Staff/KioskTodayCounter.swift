import ControlAPI
import Entities
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
/// midnight, and the completed stages that raised quality flags, counted from the daemon's events
/// into a small record of its own (`STATE/kiosk-today.json`: the day and counts, nothing of a
/// respondent), so that the
/// counts survive a restart, which erases sessions and resets the metrics.
///
/// Every event is counted as it is published (``DaemonEvents/observe(_:)``), also while the
/// daemon stops; the file is written on NIO's thread pool (``LatestRecordWriter``), never on a
/// thread of the concurrency pool, and the daemon's close waits for the last write (``flushed()``).
final class KioskTodayCounter: Service, Sendable {
    struct Record: Codable, Sendable, Hashable {
        /// The local day counted, `2026-11-28`.
        var day: String
        var started = 0
        var completed = 0
        var screenedOut = 0
        var abandoned = 0
        /// Completed stages that raised a quality flag, and how many raised each flag (absent in
        /// records written before flags were counted).
        var flagged: Int?
        var flags: [String: Int]?
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
    /// Writes the newest counts to the file, off the concurrency pool.
    let writer: LatestRecordWriter

    init(directory: String, events: DaemonEvents, logger: Logger, wallNow: @escaping @Sendable () -> Date = { Date() }) {
        self.directory = directory
        self.events = events
        self.wallNow = wallNow
        self.logger = logger
        let path = directory + "/" + Self.fileName
        let kept = FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(Record.self, from: $0) }
        record = Mutex(kept ?? Record(day: Self.day(wallNow())))
        writer = LatestRecordWriter { bytes in
            BlockingCallCheck.assertMayBlock("writing \(path)")
            do {
                try KioskStaffRecord.replace(path, with: bytes, directory: directory)
            } catch {
                logger.warning("kiosk: today's counts not kept: \(error)")
            }
        }
        events.observe { [weak self] event in self?.counted(event) }
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
                ? StaffGlance.Today(
                    started: record.started, completed: record.completed, screenedOut: record.screenedOut, abandoned: record.abandoned,
                    flagged: record.flagged ?? 0, flags: record.flags ?? [:], declined: record.declined ?? 0)
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
            case (.stageQueued, _):
                guard let flags = event.flags, !flags.isEmpty else { return nil }
                record.flagged = (record.flagged ?? 0) + 1
                var counts = record.flags ?? [:]
                for flag in flags { counts[flag, default: 0] += 1 }
                record.flags = counts
            case (.consentDeclined, _): record.declined = (record.declined ?? 0) + 1
            default: return nil
            }
            return record
        }
    }

    /// Counts `event` and hands the changed counts to the writer. On the publisher's thread:
    /// nothing here blocks.
    func counted(_ event: DaemonEvent) {
        guard let changed = count(event) else { return }
        do {
            writer.submit(Array(try JSONEncoder().encode(changed)))
        } catch {
            logger.warning("kiosk: today's counts not kept: \(error)")
        }
    }

    /// Returns once the counts of every event counted so far are in the file.
    func flushed() async {
        await writer.flushed()
    }

    /// Counting needs no task of its own (the events are counted as they are published): the
    /// service waits for the daemon's stop, then for the counts to be written. Events published
    /// later still count, and the daemon's close waits for their write too.
    func run() async throws {
        try? await gracefulShutdown()
        await flushed()
    }
}

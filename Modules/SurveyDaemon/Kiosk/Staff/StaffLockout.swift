#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The staff screen's lockout after wrong PINs (doc/security.md): after
/// ``attemptsBeforeLockout`` wrong PINs in a row the way in is locked for ``firstLockout``, each
/// further lockout twice as long as the one before, up to ``longestLockout``. A right PIN or an
/// operator's `surveyctl staff-pin unlock` starts over.
///
/// Durations are on the monotonic clock the owner injects; ``Record`` carries the end of a
/// lockout as a wall-clock date so that it survives a restart, re-anchored (and never longer
/// than the lockout it belongs to) when read back.
struct StaffLockout: Sendable, Hashable {
    static let attemptsBeforeLockout = 5
    static let firstLockout: Duration = .seconds(5 * 60)
    static let longestLockout: Duration = .seconds(3600)

    /// Wrong PINs since the last right one, the last lockout's end or an unlock.
    private(set) var failuresInARow = 0
    /// Lockouts since the last right PIN or unlock: the next one lasts `lockout(number: lockouts + 1)`.
    private(set) var lockouts = 0
    /// When the current lockout ends; nil when none was imposed.
    private(set) var lockedUntil: ContinuousClock.Instant?

    /// How long the `number`th lockout in a row lasts: 5 min, 10, 20, 40, then 1 h.
    static func lockout(number: Int) -> Duration {
        guard number > 1 else { return firstLockout }
        var duration = firstLockout
        for _ in 1..<min(number, 16) where duration < longestLockout { duration = duration * 2 }
        return min(duration, longestLockout)
    }

    /// How long the way in stays locked from `now`; nil when it is open.
    func remaining(at now: ContinuousClock.Instant) -> Duration? {
        guard let lockedUntil, now < lockedUntil else { return nil }
        return now.duration(to: lockedUntil)
    }

    /// A wrong PIN at `now` (ignored while locked: the pages do not ask for one then). Returns the
    /// lockout it starts, if any.
    @discardableResult
    mutating func failed(at now: ContinuousClock.Instant) -> Duration? {
        guard remaining(at: now) == nil else { return nil }
        failuresInARow += 1
        guard failuresInARow >= Self.attemptsBeforeLockout else { return nil }
        lockouts += 1
        failuresInARow = 0
        let duration = Self.lockout(number: lockouts)
        lockedUntil = now.advanced(by: duration)
        return duration
    }

    /// Wrong PINs left before the next lockout.
    var attemptsLeft: Int { Self.attemptsBeforeLockout - failuresInARow }

    /// A right PIN, or an operator's unlock: everything starts over.
    mutating func reset() {
        self = StaffLockout()
    }

    /// What is kept on disk.
    struct Record: Codable, Sendable, Hashable {
        var failuresInARow: Int
        var lockouts: Int
        /// When the current lockout ends, on the wall clock; nil when none is running.
        var lockedUntil: Date?
    }

    /// The state as it is kept, `now` and `wallNow` being the same moment on both clocks.
    func record(now: ContinuousClock.Instant, wallNow: Date) -> Record {
        let until = remaining(at: now).map { wallNow.addingTimeInterval(Self.seconds($0)) }
        return Record(failuresInARow: failuresInARow, lockouts: lockouts, lockedUntil: until)
    }

    /// The state read back at `now` (`wallNow` on the wall clock): a lockout keeps what is left of
    /// it, at most its whole length when the wall clock was stepped back meanwhile.
    init(record: Record, now: ContinuousClock.Instant, wallNow: Date) {
        lockouts = max(0, min(record.lockouts, 64))
        failuresInARow = max(0, min(record.failuresInARow, Self.attemptsBeforeLockout - 1))
        if let until = record.lockedUntil, lockouts > 0 {
            let left = until.timeIntervalSince(wallNow)
            let longest = Self.seconds(Self.lockout(number: lockouts))
            if left > 0 { lockedUntil = now.advanced(by: .milliseconds(Int64(min(left, longest) * 1000))) }
        }
    }

    init() {}

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

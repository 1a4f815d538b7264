/// When housekeeping's next round is due, as durations on its timeline; nil when nothing is:
/// - the first open session's idle deadline (a millisecond after it: the timeout is passed once
///   exceeded);
/// - one `period` after the last round, when something happened since it, or while a completed
///   stage waits for its delivery;
/// - a compaction `compactionInterval` after the last one when something happened since, or
///   when a closed session's retention ends (never sooner than `compactionInterval` after the
///   last compaction).
///
/// A round never follows the last one by less than ``minimumGap``: a session a request holds is
/// not closed under it, and is looked at again then.
struct HousekeepingPlan: Sendable {
    static let minimumGap: Duration = .seconds(1)
    static let margin: Duration = .milliseconds(1)

    let compactionInterval: Duration
    private(set) var lastRound: Duration
    private(set) var lastCompaction: Duration
    /// Something happened since the last round.
    private(set) var roundPending = false
    /// Something happened since the last compaction (a restart counts: the journals were
    /// replayed).
    private(set) var compactionPending = true

    init(compactionInterval: Duration, start: Duration) {
        self.compactionInterval = compactionInterval
        lastRound = start
        lastCompaction = start
    }

    /// How long to sleep at `now`; nil: until something happens.
    func wait(at now: Duration, deadlines: SessionManager.HousekeepingDeadlines, period: Duration) -> Duration? {
        var due: [Duration] = []
        if let idle = deadlines.idle { due.append(now + max(.zero, idle) + Self.margin) }
        if roundPending || deadlines.awaitingDelivery { due.append(lastRound + period) }
        let nextCompaction = lastCompaction + compactionInterval
        if compactionPending { due.append(nextCompaction) }
        if let retirement = deadlines.retirement { due.append(max(now + max(.zero, retirement) + Self.margin, nextCompaction)) }
        guard let first = due.min() else { return nil }
        return max(.zero, max(first, lastRound + Self.minimumGap) - now)
    }

    /// Whether a round at `now` compacts the session journal too.
    func compactionDue(at now: Duration) -> Bool {
        now - lastCompaction >= compactionInterval
    }

    mutating func somethingHappened() {
        roundPending = true
        compactionPending = true
    }

    mutating func ran(at now: Duration, compacted: Bool) {
        lastRound = now
        roundPending = false
        if compacted {
            lastCompaction = now
            compactionPending = false
        }
    }
}

/// When the systemd notifier next has something to do, as durations on its timeline: a
/// `WATCHDOG=1` every half watchdog interval (every status interval while the daemon is
/// unhealthy), and a status line when something happened, at most once per status interval.
/// Nothing due: no deadline at all.
struct NotifySchedule: Sendable {
    let statusInterval: Duration
    let watchdogInterval: Duration?
    /// Something happened since the last status line was read.
    var statusStale = false
    private var lastStatus: Duration?
    private var nextPing: Duration?

    init(statusInterval: Duration, watchdogInterval: Duration?) {
        self.statusInterval = statusInterval
        self.watchdogInterval = watchdogInterval
    }

    /// How long to sleep at `now`: until the earliest thing due; nil (until woken) when nothing
    /// is, or before the daemon is ready.
    func wait(at now: Duration, ready: Bool) -> Duration? {
        guard ready else { return nil }
        var deadlines: [Duration] = []
        if watchdogInterval != nil { deadlines.append(nextPing ?? now) }
        if statusStale { deadlines.append(lastStatus.map { $0 + statusInterval } ?? now) }
        return deadlines.min().map { max(.zero, $0 - now) }
    }

    func statusDue(at now: Duration) -> Bool {
        statusStale && (lastStatus.map { now - $0 >= statusInterval } ?? true)
    }

    mutating func statusSent(at now: Duration) {
        statusStale = false
        lastStatus = now
    }

    func pingDue(at now: Duration) -> Bool {
        guard watchdogInterval != nil else { return false }
        return nextPing.map { now >= $0 } ?? true
    }

    /// A ping was due at `now`: the next one half a watchdog interval later when it was sent;
    /// when the daemon was unhealthy (no ping), the health is looked at again one status
    /// interval later (or sooner, for a short watchdog).
    mutating func pinged(at now: Duration, healthy: Bool) {
        guard let watchdogInterval else { return }
        nextPing = now + (healthy ? watchdogInterval / 2 : min(statusInterval, watchdogInterval / 2))
    }
}

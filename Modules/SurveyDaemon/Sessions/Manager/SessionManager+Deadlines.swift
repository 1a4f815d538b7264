/// When the sessions next need housekeeping, so that it sleeps until then and not in rounds.
extension SessionManager {
    /// What housekeeping waits for, as durations from now on the session manager's clock.
    public struct HousekeepingDeadlines: Sendable, Hashable {
        /// Until the open session idle longest passes the idle timeout (negative: it has);
        /// nil when no session is open at a question.
        public var idle: Duration?
        /// Whether a completed stage waits for its delivery: if its queueing failed, only
        /// housekeeping queues it again, so it looks now and then while one waits.
        public var awaitingDelivery: Bool
        /// Until the session closed longest ago is kept `retention` (negative: it has been);
        /// nil when no closed session is kept.
        public var retirement: Duration?
    }

    /// The deadlines of every session in memory (see ``HousekeepingDeadlines``).
    public func housekeepingDeadlines(retention: Duration) -> HousekeepingDeadlines {
        let now = timeline.elapsed()
        var deadlines = HousekeepingDeadlines(idle: nil, awaitingDelivery: false, retirement: nil)
        for (id, session) in sessions {
            switch session.state {
            case .asking:
                let left = (activeAt[id] ?? .zero) + settings.idleTimeout - now
                deadlines.idle = min(deadlines.idle ?? left, left)
            case .awaitingDelivery:
                deadlines.awaitingDelivery = true
            case .closed:
                let left = (closedAt[id] ?? anchor(session.lastActivity)) + retention - now
                deadlines.retirement = min(deadlines.retirement ?? left, left)
            }
        }
        return deadlines
    }
}

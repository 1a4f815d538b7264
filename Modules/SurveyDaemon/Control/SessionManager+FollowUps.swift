import ControlAPI

extension SessionManager {
    /// Closed sessions that ended `queued` and whose upload was later delivered with a follow-up
    /// stage, most recently closed first, at most `limit`: `surveyctl status` shows them, since
    /// the respondent left before the server named the stage.
    ///
    /// The daemon keeps every session of its journal in memory, so this covers the sessions since
    /// the journal's last compaction; the limit keeps the status reply small.
    public func recentFollowUps(limit: Int) -> [SessionView] {
        sessions.values
            .filter { session in
                guard case .closed(.queued) = session.state else { return false }
                return session.followUp != nil
            }
            .sorted { ($0.lastActivity, $0.id.uuidString) > ($1.lastActivity, $1.id.uuidString) }
            .prefix(max(0, limit))
            .map { $0.view() }
    }
}

// `GET /v1/status`'s `erasure`: what waits to be erased from the disk (doc/control-api.md).

extension StatusView {
    /// What of respondents' answers waits for erasure from the state directory.
    public struct Erasure: Sendable, Hashable, Codable {
        /// `erasureDelaySeconds`: how long answers no longer needed stay on disk.
        public var delaySeconds: Double
        /// How long the answers that have waited longest have waited; nil when none wait.
        public var oldestWaitingSeconds: Double?
        /// Closed sessions whose answers wait in the session journal.
        public var sessions: Int
        /// Whether delivered or dropped submissions' bodies wait in the queue's files.
        public var queueBodies: Bool
        /// Kept copies of damaged journal bytes that wait.
        public var keptCopies: Int

        public init(delaySeconds: Double, oldestWaitingSeconds: Double?, sessions: Int, queueBodies: Bool, keptCopies: Int) {
            self.delaySeconds = delaySeconds
            self.oldestWaitingSeconds = oldestWaitingSeconds
            self.sessions = sessions
            self.queueBodies = queueBodies
            self.keptCopies = keptCopies
        }
    }
}

extension StatusView.Erasure {
    /// `surveyctl status`'s line, e.g. `erasure: 2 closed sessions' answers, delivered
    /// submissions waiting, oldest 42s (erased 10m 0s after they are no longer needed; ...)`.
    public var line: String {
        let delay = "erased \(Rendering.duration(delaySeconds)) after they are no longer needed"
        guard let oldest = oldestWaitingSeconds else { return "erasure: nothing waiting (answers are \(delay))" }
        var parts: [String] = []
        if sessions > 0 { parts.append("\(sessions) closed session\(sessions == 1 ? "'s" : "s'") answers") }
        if queueBodies { parts.append("delivered submissions") }
        if keptCopies > 0 { parts.append("\(keptCopies) kept cop\(keptCopies == 1 ? "y" : "ies") of damaged bytes") }
        let what = parts.isEmpty ? "answers" : parts.joined(separator: ", ")
        return "erasure: \(what) waiting, oldest \(Rendering.duration(oldest)) (\(delay); `surveyctl purge` erases them now)"
    }
}

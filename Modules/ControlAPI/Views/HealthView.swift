/// `GET /v1/health`: whether the daemon is live (it answered) and ready to take answers, with
/// why not. The reply is `200` when ready and `503` otherwise, with this body either way.
public struct HealthView: Sendable, Hashable, Codable {
    /// Why the daemon is not ready.
    public struct Reason: Sendable, Hashable, Codable {
        /// Stable, for scripts: `journal_failed`, `not_listening` or `stopping`.
        public var code: String
        /// What is wrong and what to do.
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The daemon answered: always true in a reply.
    public var live: Bool
    /// Its journals can write, its control socket listens, and it is not stopping.
    public var ready: Bool
    /// Empty when ready.
    public var reasons: [Reason]
    /// Whether answers are encrypted at rest; nil from an older daemon.
    public var encryption: EncryptionView?
    /// Whether the survey server can be reached, and what answers in its place while the state is
    /// `portal` (not a readiness reason: answers are still taken and kept); nil from an older daemon.
    public var connectivity: StatusView.Connectivity?
    /// The kiosk's `in_service`, `out_of_service` or `closed`; nil without kiosk pages. Out of
    /// service does not make the daemon unready (the control API still takes sessions).
    public var kiosk: String?

    public init(live: Bool = true, ready: Bool, reasons: [Reason]) {
        self.live = live
        self.ready = ready
        self.reasons = reasons
    }

    /// The readiness reason codes.
    public static let journalFailed = "journal_failed"
    public static let notListening = "not_listening"
    public static let stopping = "stopping"

    /// Whether a journal cannot write (`surveyctl` exits 74 then, 75 for any other reason).
    public var journalFailed: Bool { reasons.contains { $0.code == Self.journalFailed } }
}

public import ControlAPI

/// What the control API asks of the daemon, by what each group of routes needs: sessions,
/// delivery, health and metrics, and the queue's operator endpoints. ``DaemonBackend`` is all
/// four; a test's fake is what its test serves, and ``MetricsListener`` asks only for health.
public typealias ControlBackend = ControlSessionBackend & ControlDeliveryBackend & ControlHealthBackend & ControlQueueBackend & ControlKioskBackend

/// The sessions' endpoints (`/v1/sessions`, `/v1/answers`).
public protocol ControlSessionBackend: Sendable {
    func startSession(_ request: StartSessionRequest) async throws -> SessionView
    func answer(_ request: AnswerRequest) async throws -> AnswerReply
    func session(id: String) async throws -> SessionView
    func openSessions() async throws -> [SessionView]
}

/// Delivery and what the operator watches of it: status, flush, resume, events, dead letters.
public protocol ControlDeliveryBackend: Sendable {
    func status() async throws -> StatusView
    func flush(_ request: FlushRequest) async throws -> FlushReply
    /// Ends a pause of delivery (`POST /v1/resume`).
    func resume() async throws -> ResumeReply
    /// What happens from now on (`GET /v1/events`), until the daemon stops.
    func events() async -> AsyncStream<DaemonEvent>
    func deadLetters() async throws -> [DeadLetterView]
    func requeue(deadLetter id: String, _ request: RequeueRequest) async throws -> DeadLetterView
}

/// Readiness and metrics, served on the control socket and on `metricsListen`.
public protocol ControlHealthBackend: Sendable {
    /// Whether the daemon is ready, and why not (`GET /v1/health`).
    func health() async -> HealthView
    /// Every metric in the Prometheus text format (`GET /metrics`); ``ControlError/noMetrics``
    /// when the daemon serves none.
    func metrics() async throws -> [UInt8]
}

/// The queue's operator endpoints (doc/control-api.md, "The queue"); each throws
/// ``ControlError/noQueueAdministration`` when the queue has none.
public protocol ControlQueueBackend: Sendable {
    func queue() async throws -> QueueListView
    func queueEntry(id: String, answers: Bool) async throws -> QueueEntryView
    /// At most `limit` lines of the export of `state`, after the submission `after` (from the
    /// first when nil), and where the next page starts (nil at the end).
    func exportQueue(_ state: QueueExportState, after: String?, limit: Int) async throws -> QueueExportPage
    func importQueued(_ line: QueueExportLine) async throws -> QueueEntryView
    func requeue(_ request: RequeueManyRequest) async throws -> RequeueManyReply
    func drop(deadLetter id: String) async throws -> DeadLetterView
    func purge() async throws -> PurgeReply
}

/// A page of `GET /v1/queue/export`: the lines, and the submission the next page starts after.
public struct QueueExportPage: Sendable {
    public var lines: [QueueExportLine]
    public var next: String?

    public init(lines: [QueueExportLine], next: String?) {
        self.lines = lines
        self.next = next
    }
}

extension ControlError {
    /// `GET /metrics` of a daemon that serves no metrics: 404.
    public static var noMetrics: ControlError {
        ControlError.notFound("no_such_endpoint", "this daemon serves no metrics; see doc/control-api.md")
    }

    /// The queue's operator endpoints of a daemon whose queue has none: 404.
    public static var noQueueAdministration: ControlError {
        ControlError.notFound("no_such_endpoint", "this daemon's queue has no operator endpoints; see doc/control-api.md")
    }
}

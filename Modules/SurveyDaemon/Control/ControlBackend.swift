import ControlAPI

/// What the control API asks of the daemon. The session manager implements it; tests of the
/// server use a fake.
public protocol ControlBackend: Sendable {
    func startSession(_ request: StartSessionRequest) async throws -> SessionView
    func answer(_ request: AnswerRequest) async throws -> AnswerReply
    func session(id: String) async throws -> SessionView
    func openSessions() async throws -> [SessionView]
    func status() async throws -> StatusView
    func flush(_ request: FlushRequest) async throws -> FlushReply
    func deadLetters() async throws -> [DeadLetterView]
    func requeue(deadLetter id: String, _ request: RequeueRequest) async throws -> DeadLetterView
    /// Whether the daemon is ready, and why not (`GET /v1/health`).
    func health() async -> HealthView
    /// Every metric in the Prometheus text format (`GET /metrics`).
    func metrics() async throws -> [UInt8]
    /// What happens from now on (`GET /v1/events`), until the daemon stops.
    func events() async -> AsyncStream<DaemonEvent>
    /// Ends a pause of delivery (`POST /v1/resume`).
    func resume() async throws -> ResumeReply
    // The queue's operator endpoints (DaemonBackend+Queue.swift; a backend without them answers 404).
    func queue() async throws -> QueueListView
    func queueEntry(id: String, answers: Bool) async throws -> QueueEntryView
    func exportQueue(_ state: QueueExportState) async throws -> [QueueExportLine]
    func importQueued(_ line: QueueExportLine) async throws -> QueueEntryView
    func requeue(_ request: RequeueManyRequest) async throws -> RequeueManyReply
    func drop(deadLetter id: String) async throws -> DeadLetterView
    func purge() async throws -> PurgeReply
}

extension ControlBackend {
    /// Ready: it answered.
    public func health() async -> HealthView { HealthView(ready: true, reasons: []) }

    /// Nothing to resume.
    public func resume() async throws -> ResumeReply { ResumeReply(resumed: false, paused: nil) }

    /// No events: a stream that ends at once.
    public func events() async -> AsyncStream<DaemonEvent> { AsyncStream { $0.finish() } }

    /// No metrics.
    public func metrics() async throws -> [UInt8] {
        throw ControlError.notFound("no_such_endpoint", "this daemon serves no metrics; see doc/control-api.md")
    }
}

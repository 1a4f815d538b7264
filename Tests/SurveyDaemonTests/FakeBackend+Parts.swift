import ControlAPI
@testable import SurveyDaemon

/// What ``FakeBackend`` answers beyond sessions and delivery: ready, no metrics, no events,
/// nothing to resume, and a queue without operator endpoints (404, as a daemon's without them).
extension FakeBackend {
    func health() async -> HealthView { HealthView(ready: true, reasons: []) }
    func metrics() async throws -> [UInt8] { throw ControlError.noMetrics }
    func events() async -> AsyncStream<DaemonEvent> { AsyncStream { $0.finish() } }
    func resume() async throws -> ResumeReply { ResumeReply(resumed: false, paused: nil) }

    func queue() async throws -> QueueListView { throw ControlError.noQueueAdministration }
    func queueEntry(id: String, answers: Bool) async throws -> QueueEntryView { throw ControlError.noQueueAdministration }
    func exportQueue(_ state: QueueExportState, after: String?, limit: Int) async throws -> QueueExportPage { throw ControlError.noQueueAdministration }
    func importQueued(_ line: QueueExportLine) async throws -> QueueEntryView { throw ControlError.noQueueAdministration }
    func requeue(_ request: RequeueManyRequest) async throws -> RequeueManyReply { throw ControlError.noQueueAdministration }
    func drop(deadLetter id: String) async throws -> DeadLetterView { throw ControlError.noQueueAdministration }
    func purge() async throws -> PurgeReply { throw ControlError.noQueueAdministration }
}

/// A test backend that changes a few answers of a ``FakeBackend`` and forwards the rest to it.
protocol ForwardingToFake: ControlBackend {
    var fake: FakeBackend { get }
}

extension ForwardingToFake {
    func startSession(_ request: StartSessionRequest) async throws -> SessionView { try await fake.startSession(request) }
    func answer(_ request: AnswerRequest) async throws -> AnswerReply { try await fake.answer(request) }
    func session(id: String) async throws -> SessionView { try await fake.session(id: id) }
    func openSessions() async throws -> [SessionView] { try await fake.openSessions() }

    func status() async throws -> StatusView { try await fake.status() }
    func flush(_ request: FlushRequest) async throws -> FlushReply { try await fake.flush(request) }
    func resume() async throws -> ResumeReply { try await fake.resume() }
    func events() async -> AsyncStream<DaemonEvent> { await fake.events() }
    func deadLetters() async throws -> [DeadLetterView] { try await fake.deadLetters() }
    func requeue(deadLetter id: String, _ request: RequeueRequest) async throws -> DeadLetterView { try await fake.requeue(deadLetter: id, request) }

    func health() async -> HealthView { await fake.health() }
    func metrics() async throws -> [UInt8] { try await fake.metrics() }

    func queue() async throws -> QueueListView { try await fake.queue() }
    func queueEntry(id: String, answers: Bool) async throws -> QueueEntryView { try await fake.queueEntry(id: id, answers: answers) }
    func exportQueue(_ state: QueueExportState, after: String?, limit: Int) async throws -> QueueExportPage { try await fake.exportQueue(state, after: after, limit: limit) }
    func importQueued(_ line: QueueExportLine) async throws -> QueueEntryView { try await fake.importQueued(line) }
    func requeue(_ request: RequeueManyRequest) async throws -> RequeueManyReply { try await fake.requeue(request) }
    func drop(deadLetter id: String) async throws -> DeadLetterView { try await fake.drop(deadLetter: id) }
    func purge() async throws -> PurgeReply { try await fake.purge() }
}

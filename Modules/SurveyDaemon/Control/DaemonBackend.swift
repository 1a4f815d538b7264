import ControlAPI
import Entities
import Foundation

/// Counts of the submission queue.
public struct QueueCounts: Sendable, Hashable {
    public var pending: Int
    public var dead: Int
    public var delivered: Int
    public var oldestPendingAt: Date?

    public init(pending: Int, dead: Int, delivered: Int, oldestPendingAt: Date?) {
        self.pending = pending
        self.dead = dead
        self.delivered = delivered
        self.oldestPendingAt = oldestPendingAt
    }
}

/// A submission the server refused for good.
public struct DeadLetter: Sendable, Hashable {
    public var id: String
    public var stage: String
    public var language: String
    public var reason: String
    /// The key it was last sent with (after a requeue: the key it is sent with now).
    public var idempotencyKey: UUID
    public var queuedAt: Date
    public var outcome: DeadLetterOutcome
    /// Set by a requeue that gave it a new key: the key it had before.
    public var previousIdempotencyKey: UUID?

    public init(id: String, stage: String, language: String, reason: String, idempotencyKey: UUID, queuedAt: Date, outcome: DeadLetterOutcome = .unknown, previousIdempotencyKey: UUID? = nil) {
        self.id = id
        self.stage = stage
        self.language = language
        self.reason = reason
        self.idempotencyKey = idempotencyKey
        self.queuedAt = queuedAt
        self.outcome = outcome
        self.previousIdempotencyKey = previousIdempotencyKey
    }
}

/// What the operator sees of the queue and the journal.
public protocol QueueInspector: Sendable {
    func counts() async throws -> QueueCounts
    func deadLetters() async throws -> [DeadLetter]
    /// Puts a dead letter back in the queue, with a new key when `key` says so or, when it is nil,
    /// when the letter was rejected; nil when there is no such dead letter.
    func requeue(deadLetter id: String, key: RequeueRequest.Key?) async throws -> DeadLetter?
    /// Problems found in the journal (recovered corruption, torn tails).
    func journalProblems() async -> [String]
    /// Whether each journal can write now.
    func journalHealth() async -> [StatusView.Journal]
}

extension QueueInspector {
    /// No journals to report.
    public func journalHealth() async -> [StatusView.Journal] { [] }
}

/// The connectivity verdict and when it last changed; `online` is nil before the first check.
public protocol ConnectivityObserver: Sendable {
    func current() async -> (online: Bool?, since: Date?)
}

/// The control API's backend in the daemon: sessions from the ``SessionManager``, delivery from
/// the ``DeliveryWorker``, counts from the queue.
public struct DaemonBackend: ControlBackend {
    public let version: String
    public let startedAt: Date
    let sessions: SessionManager
    let worker: DeliveryWorker
    let inspector: any QueueInspector
    let connectivity: any ConnectivityObserver
    let now: @Sendable () -> Date

    public init(version: String, startedAt: Date, sessions: SessionManager, worker: DeliveryWorker, inspector: any QueueInspector, connectivity: any ConnectivityObserver, now: @escaping @Sendable () -> Date = { Date() }) {
        self.version = version
        self.startedAt = startedAt
        self.sessions = sessions
        self.worker = worker
        self.inspector = inspector
        self.connectivity = connectivity
        self.now = now
    }

    public func startSession(_ request: StartSessionRequest) async throws -> SessionView {
        try await sessions.start(request)
    }

    public func answer(_ request: AnswerRequest) async throws -> AnswerReply {
        try await sessions.answer(request)
    }

    public func session(id: String) async throws -> SessionView {
        try await sessions.view(id: id)
    }

    public func openSessions() async throws -> [SessionView] {
        await sessions.openSessions().map { $0.view() }
    }

    public func status() async throws -> StatusView {
        let time = now()
        let counts = try await queueCounts()
        let snapshot = await worker.snapshot
        let (online, since) = await connectivity.current()
        let problems = await inspector.journalProblems() + sessions.restoreProblems
        return StatusView(
            version: version,
            startedAt: startedAt.iso8601Seconds,
            uptimeSeconds: time.timeIntervalSince(startedAt),
            connectivity: .init(state: Self.connectivityName(online), since: since?.iso8601Seconds),
            queue: .init(
                pending: counts.pending, inFlight: snapshot.inFlight, dead: counts.dead, delivered: counts.delivered,
                oldestPendingAgeSeconds: counts.oldestPendingAt.map { time.timeIntervalSince($0) },
                lastDeliveryAt: snapshot.lastDeliveryAt?.iso8601Seconds,
                nextRetryAt: snapshot.nextRetryAt?.iso8601Seconds
            ),
            journalProblems: problems,
            sessions: await sessions.openSessions().map { $0.view() },
            followUps: await sessions.recentFollowUps(limit: StatusView.followUpLimit),
            definitionProblems: await sessions.definitions.problems().map {
                StatusView.DefinitionProblem(stage: $0.stage, lang: $0.language, error: $0.error, since: $0.since.iso8601Seconds)
            },
            journals: await inspector.journalHealth()
        )
    }

    public func flush(_ request: FlushRequest) async throws -> FlushReply {
        await worker.flush()
        let counts = try await queueCounts()
        return FlushReply(pending: counts.pending, dead: counts.dead, drained: counts.pending == 0, connectivity: Self.connectivityName(await connectivity.current().online))
    }

    public func deadLetters() async throws -> [DeadLetterView] {
        do {
            return try await inspector.deadLetters().map(Self.view)
        } catch {
            throw ControlError.unavailable("queue_unavailable", "the dead letters cannot be read: \(error)")
        }
    }

    public func requeue(deadLetter id: String, _ request: RequeueRequest = RequeueRequest()) async throws -> DeadLetterView {
        let letter: DeadLetter?
        do {
            letter = try await inspector.requeue(deadLetter: id, key: request.key)
        } catch {
            throw ControlError.unavailable("queue_unavailable", "dead letter \(id) cannot be requeued: \(error)")
        }
        guard let letter else {
            throw ControlError.notFound("no_such_dead_letter", "no dead letter \(id); `surveyctl dead` lists them")
        }
        await worker.wake()
        return Self.view(letter)
    }

    func queueCounts() async throws -> QueueCounts {
        do {
            return try await inspector.counts()
        } catch {
            throw ControlError.unavailable("queue_unavailable", "the submission queue cannot be read: \(error); check the state directory")
        }
    }

    static func view(_ letter: DeadLetter) -> DeadLetterView {
        DeadLetterView(
            id: letter.id, stage: letter.stage, lang: letter.language, reason: letter.reason, idempotencyKey: letter.idempotencyKey.text(uppercase: false),
            queuedAt: letter.queuedAt.iso8601Seconds, outcome: letter.outcome.rawValue, previousIdempotencyKey: letter.previousIdempotencyKey?.text(uppercase: false))
    }

    static func connectivityName(_ online: Bool?) -> String {
        switch online {
        case true?: "online"
        case false?: "offline"
        case nil: "unknown"
        }
    }
}

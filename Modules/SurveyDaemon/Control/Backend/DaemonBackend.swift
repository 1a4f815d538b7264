public import ControlAPI
import Entities
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Networking
public import Storage

/// A dead letter put back in the queue: the letter as it was, and the submission as it is now
/// (under a new idempotency key when the requeue gave it one).
public struct RequeuedLetter: Sendable, Hashable {
    public var letter: DeadSubmission
    public var submission: QueuedSubmission

    public init(letter: DeadSubmission, submission: QueuedSubmission) {
        self.letter = letter
        self.submission = submission
    }
}

/// What the operator sees of the queue and the journal, in the Storage queue's types.
public protocol QueueInspector: Sendable {
    func counts() async throws -> SubmissionQueueCounts
    func deadLetters() async throws -> [DeadSubmission]
    /// Puts a dead letter back in the queue with the key `key` chooses; nil when there is no
    /// such dead letter.
    func requeue(_ id: SubmissionID, key: RequeueKey) async throws -> RequeuedLetter?
    /// Problems found in the journal (recovered corruption, torn tails).
    func journalProblems() async -> [String]
    /// Whether each journal can write now.
    func journalHealth() async -> [StatusView.Journal]
    /// The bytes each journal's segment files take on disk, by journal name.
    func journalDiskBytes() async -> [(name: String, bytes: Int)]
}

extension QueueInspector {
    /// No journals to report.
    public func journalHealth() async -> [StatusView.Journal] { [] }
    public func journalDiskBytes() async -> [(name: String, bytes: Int)] { [] }
}

/// The connectivity verdict and when it last changed (`unknown` before the first check), as
/// the Networking connectivity monitor keeps it.
public protocol ConnectivityObserver: Sendable {
    var status: ConnectivityStatus { get async }
}

extension ConnectivityMonitor: ConnectivityObserver {}

/// The control API's backend in the daemon: sessions from the ``SessionManager``, delivery from
/// the ``DeliveryWorker``, counts from the queue.
public struct DaemonBackend: ControlBackend {
    public let version: String
    public let startedAt: Date
    let sessions: SessionManager
    let worker: DeliveryWorker
    let inspector: any QueueInspector
    let connectivity: any ConnectivityObserver
    /// The daemon's phase, for readiness; nil: serving (it answered).
    let lifecycle: DaemonHealth?
    /// The metrics' registry; nil: none served.
    let exporter: MetricsExporter?
    let now: @Sendable () -> Date
    /// The id the daemon sends with its uploads, shown by `status`.
    public var deviceId: String?
    /// The queue's operator endpoints (doc/control-api.md, "The queue"); nil: they answer 404.
    public var queueAdministration: (any QueueAdministration)?
    /// The server URL is plain `http`: `status` warns that what is sent can be read on the way.
    public var serverURLIsPlainHTTP = false
    /// Takes answers off the disk: `status` shows what waits, `purge` erases it at once; nil:
    /// `purge` purges the queue only.
    public var erasure: AnswerErasure?
    /// Whether the journals are encrypted, for `status`, `health` and the metrics; nil: not said.
    /// It lists the journals' segments (blocking file calls): see ``encryptionView()``.
    public var encryption: (@Sendable () -> EncryptionView)?
    /// How long the daemon has run, on a monotonic clock, for `status`'s `uptimeSeconds` (a step
    /// of the wall clock does not change it); nil: counted from `startedAt` on `now`.
    public var uptime: (@Sendable () -> Duration)?
    /// The kiosk's staff state (out of service, survey, PIN lockout); nil without kiosk pages.
    public var staffDesk: KioskStaffDesk?

    public init(
        version: String, startedAt: Date, sessions: SessionManager, worker: DeliveryWorker, inspector: any QueueInspector, connectivity: any ConnectivityObserver,
        lifecycle: DaemonHealth? = nil, exporter: MetricsExporter? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.version = version
        self.startedAt = startedAt
        self.sessions = sessions
        self.worker = worker
        self.inspector = inspector
        self.connectivity = connectivity
        self.lifecycle = lifecycle
        self.exporter = exporter
        self.now = now
    }

    public func health() async -> HealthView {
        var view = DaemonHealth.view(phase: lifecycle?.phase ?? .serving, journals: await inspector.journalHealth())
        view.encryption = await encryptionView()
        view.connectivity = await connectivityView()
        view.kiosk = staffDesk?.view.state
        return view
    }

    /// ``encryption``'s view, made on the concurrency pool: these requests are handled on an
    /// event loop, which a directory listing must not block.
    func encryptionView() async -> EncryptionView? {
        guard let encryption else { return nil }
        return await onPool { encryption() }
    }

    public func resume() async throws -> ResumeReply {
        let ended = await worker.resume(because: "an operator asked (surveyctl resume)")
        return ResumeReply(resumed: ended != nil, paused: ended.map { StatusView.Paused(reason: $0.reason, since: $0.since.iso8601Seconds) })
    }

    public func events() async -> AsyncStream<DaemonEvent> {
        guard let exporter else { return AsyncStream { $0.finish() } }
        return exporter.metrics.events.subscribe()
    }

    public func metrics() async throws -> [UInt8] {
        guard let exporter else {
            throw ControlError.noMetrics
        }
        let journals = await inspector.journalHealth()
        let failed = Set(journals.filter { $0.state != "ok" }.map(\.name))
        let sizes = await inspector.journalDiskBytes().map { (name: $0.name, diskBytes: $0.bytes, failed: failed.contains($0.name)) }
        let health = DaemonHealth.view(phase: lifecycle?.phase ?? .serving, journals: journals)
        var snapshot = MetricsExporter.Snapshot(
            counts: try? await inspector.counts(), now: now(), connectivity: await connectivity.status.state, journals: sizes, ready: health.ready,
            paused: await worker.snapshot.paused != nil, holdOff: await worker.holdOff, encryption: await encryptionView())
        if let erasure { snapshot.erasureLongestWait = await onPool { await erasure.waiting() }.longest }
        return exporter.exposition(snapshot)
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
        let problems = await inspector.journalProblems() + sessions.restoreProblems
        var view = StatusView(
            version: version,
            startedAt: startedAt.iso8601Seconds,
            uptimeSeconds: uptime.map { $0().timeInterval } ?? time.timeIntervalSince(startedAt),
            connectivity: await connectivityView(),
            queue: .init(
                pending: counts.pending, inFlight: snapshot.inFlight, dead: counts.dead, delivered: counts.delivered,
                oldestPendingAgeSeconds: counts.oldestPendingAt.map { max(0, time.timeIntervalSince($0)) },
                lastDeliveryAt: snapshot.lastDeliveryAt?.iso8601Seconds,
                nextRetryAt: await worker.nextStart(pending: counts.pending)?.iso8601Seconds,
                bytesOnDisk: queueDiskBytes
            ),
            journalProblems: problems,
            sessions: await sessions.openSessions().map { $0.view() },
            followUps: await sessions.recentFollowUps(limit: StatusView.followUpLimit),
            definitionProblems: await sessions.definitions.problems().map {
                StatusView.DefinitionProblem(stage: $0.stage, lang: $0.language, error: $0.error, since: $0.since.iso8601Seconds)
            },
            journals: await inspector.journalHealth()
        )
        view.deviceId = deviceId
        view.queue.holdOff = await worker.holdOff.map { StatusView.HoldOff(reason: $0.reason, status: $0.status, until: $0.until.iso8601Seconds) }
        view.queue.waiting = await worker.waiting(pending: counts.pending).map { StatusView.Waiting(reason: $0.reason, until: $0.until?.iso8601Seconds) }
        view.firstStageMissing = await sessions.firstStageMissing.map {
            StatusView.FirstStageMissing(stage: $0.stage, lang: $0.language, since: $0.since.iso8601Seconds)
        }
        view.erasure = await erasureView(at: time)
        view.encryption = await encryptionView()
        view.paused = snapshot.paused.map { StatusView.Paused(reason: $0.reason, since: $0.since.iso8601Seconds) }
        view.kiosk = staffDesk?.view
        return view
    }

    public func flush(_ request: FlushRequest) async throws -> FlushReply {
        await worker.flush()
        let counts = try await queueCounts()
        return FlushReply(pending: counts.pending, dead: counts.dead, drained: counts.pending == 0, connectivity: await connectivity.status.state.rawValue)
    }

    public func deadLetters() async throws -> [DeadLetterView] {
        do {
            return try await inspector.deadLetters().map(Self.view)
        } catch {
            throw ControlError.unavailable("queue_unavailable", "the dead letters cannot be read: \(error)")
        }
    }

    /// Requeues the dead letter whose id is `id` in canonical decimal (anything else names none);
    /// the queue wakes the worker.
    public func requeue(deadLetter id: String, _ request: RequeueRequest = RequeueRequest()) async throws -> DeadLetterView {
        let notFound = ControlError.notFound("no_such_dead_letter", "no dead letter \(id); `surveyctl dead` lists them")
        guard let submission = SubmissionID(id) else { throw notFound }
        let key: RequeueKey = switch request.key {
        case nil: .byOutcome
        case .keep?: .keep
        case .new?: .new
        }
        let requeued: RequeuedLetter?
        do {
            requeued = try await inspector.requeue(submission, key: key)
        } catch {
            throw ControlError.unavailable("queue_unavailable", "dead letter \(id) cannot be requeued: \(error)")
        }
        guard let requeued else { throw notFound }
        return Self.view(requeued)
    }

    func queueCounts() async throws -> SubmissionQueueCounts {
        do {
            return try await inspector.counts()
        } catch {
            throw ControlError.unavailable("queue_unavailable", "the submission queue cannot be read: \(error); check the state directory")
        }
    }

    /// A dead letter as the control API shows it: its id, the key it was last sent with.
    static func view(_ letter: DeadSubmission) -> DeadLetterView {
        view(letter, key: letter.submission.idempotencyKey, previousKey: nil)
    }

    /// A requeued letter: the key it is sent with now, and the one it had when the requeue gave a new one.
    static func view(_ requeued: RequeuedLetter) -> DeadLetterView {
        let previous = requeued.letter.submission.idempotencyKey
        let key = requeued.submission.idempotencyKey
        return view(requeued.letter, key: key, previousKey: key == previous ? nil : previous)
    }

    static func view(_ letter: DeadSubmission, key: UUID, previousKey: UUID?) -> DeadLetterView {
        let submission = letter.submission
        return DeadLetterView(
            id: submission.id.description, stage: submission.metadata.stage, lang: submission.metadata.language, reason: letter.reason,
            idempotencyKey: key.text(uppercase: false), queuedAt: submission.metadata.queuedAt.iso8601Seconds, outcome: letter.outcome.rawValue,
            previousIdempotencyKey: previousKey?.text(uppercase: false))
    }
}

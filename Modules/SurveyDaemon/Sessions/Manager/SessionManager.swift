import Entities
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Storage
public import Logging
public import Validation

/// Runs every respondent session of the daemon.
///
/// Each accepted answer is journaled before the reply; a completed stage is queued with a fixed
/// idempotency key, and the respondent waits at most ``Settings/deliveryWait`` for its delivery
/// before the outcome is `queued`. Requests for one session are handled one at a time
/// (``withSession(_:_:)``); state is re-checked after every suspension. It speaks in sessions and
/// ``SessionError``s: the control API (and any other front end) maps them to its own replies.
///
/// Its jobs live in their own files: the calls a front end makes (`SessionManager+Calls.swift`,
/// `SessionManager+Answer.swift`), the delivery of completed stages (`SessionManager+Delivery.swift`,
/// with the ``DeliveryRendezvous``), housekeeping (`SessionManager+Housekeeping.swift`) and the
/// restore at start (`SessionManager+Restore.swift`). This file holds the state and the one way
/// to change a session: under its lock, recorded in the journal before it is applied.
public actor SessionManager {
    public struct Settings: Sendable {
        public var defaultLanguage: String
        public var idleTimeout: Duration
        public var deliveryWait: Duration
        /// The stage a session starts at when its start names none.
        public var firstStage: String
        /// The thresholds stages are judged by (`SessionManager+Quality.swift`); nil: nothing is
        /// measured and no stage is judged.
        public var quality: QualityRules?

        public init(defaultLanguage: String, idleTimeout: Duration, deliveryWait: Duration, firstStage: String = "common", quality: QualityRules? = QualityRules()) {
            self.defaultLanguage = defaultLanguage
            self.idleTimeout = idleTimeout
            self.deliveryWait = deliveryWait
            self.firstStage = firstStage
            self.quality = quality
        }
    }

    let journal: any SessionJournal
    let definitions: any DefinitionSource
    let queue: any SubmissionSink
    var settings: Settings
    /// Measures the wait for a delivery.
    let clock: any Clock<Duration>
    /// The same clock, read as time elapsed: the idle timeout, the erasure delay and the
    /// retention of closed sessions are measured on it, so a step of the wall clock changes none.
    let timeline: Timeline
    /// The dates events record: what people read, and what a restart reads back (and re-anchors
    /// on ``timeline``, ``anchor(_:)``).
    let now: @Sendable () -> Date
    let logger: Logger
    /// Counts answers and sessions as they are journaled.
    let metrics: DaemonMetrics

    var sessions: [UUID: Session] = [:]
    /// Requests for one session are handled one at a time.
    let locks = SessionLocks()
    /// Appends hold it shared; a journal compaction holds it exclusive.
    let journalGate = ExclusiveGate()
    /// Where an answer that completed a stage waits for its delivery.
    let deliveries = DeliveryRendezvous()
    /// The answer each session accepted last, with its question: a repeat of it returns the
    /// session as it stands instead of answering again. In memory only.
    var lastAnswers: [UUID: AcceptedAnswer] = [:]
    /// Problems met while rebuilding sessions, for `surveyctl status` (`SessionManager+Restore.swift`).
    public internal(set) var restoreProblems: [String] = []
    /// Set while the survey server has no questionnaire for ``Settings/firstStage``, for
    /// `surveyctl status` (`SessionManager+Calls.swift`).
    public internal(set) var firstStageMissing: FirstStageMissing?
    /// The journaled events of every session in memory (and of sessions that could not be
    /// restored), in order: what a journal compaction writes again.
    var history: [UUID: [SessionEvent]] = [:]
    /// Closed sessions whose answers are still in the journal, with since when they have been
    /// waiting for erasure (`SessionManager+Erasure.swift`).
    var awaitingErasure: [UUID: ErasureWait] = [:]
    /// Woken when answers start waiting for erasure: the erasure service sleeps until then.
    nonisolated let erasureWakeup = DeliveryWakeup()
    /// Closed sessions that ended `queued`: their answers wait for erasure once the upload is
    /// delivered (or its dead letter dropped).
    var awaitingUpload: Set<UUID> = []
    /// When each open session last saw its respondent, on ``timeline``: what the idle timeout is
    /// judged on. Set by every journaled event and every rejected answer; a restored session is
    /// re-anchored at the restore (`SessionManager+Restore.swift`).
    var activeAt: [UUID: Duration] = [:]
    /// When each closed session closed, on ``timeline``: what the retention of closed sessions is
    /// judged on (`SessionManager+Housekeeping.swift`); re-anchored at a restore.
    var closedAt: [UUID: Duration] = [:]
    /// What is measured of each open session's current stage (`SessionManager+Quality.swift`).
    var paradata: [UUID: ParadataTracker] = [:]
    /// This kiosk's recent completions, for the flags that compare a stage with the ones before.
    var completions = CompletionHistory(keep: .seconds(3600))

    /// - Parameters:
    ///   - clock: a monotonic clock (`ContinuousClock` in the daemon: it counts the time a
    ///     suspended machine slept, so a respondent who walked away before a suspend is idle after
    ///     it): the wait for a delivery, the idle timeout, the erasure delay and the retention of
    ///     closed sessions are measured on it.
    ///   - now: the wall-clock date events record, for people and for the next start.
    public init(
        journal: any SessionJournal, definitions: any DefinitionSource, queue: any SubmissionSink, settings: Settings,
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }, logger: Logger,
        metrics: DaemonMetrics = .disabled
    ) {
        self.metrics = metrics
        self.journal = journal
        self.definitions = definitions
        self.queue = queue
        self.settings = settings
        self.clock = clock
        self.timeline = Timeline(clock)
        self.now = now
        self.logger = logger
    }

    // MARK: Changing a session

    /// Runs `body` on session `id` while holding the session's lock, then writes the session back
    /// once, also when `body` throws (what it recorded is journaled). A session retired by a
    /// journal compaction meanwhile stays retired.
    func withSession<T>(_ id: UUID, _ body: (inout Session) async throws(SessionError) -> T) async throws(SessionError) -> T {
        await locks.acquire(id)
        defer { locks.release(id) }
        guard var session = sessions[id] else { throw .noSuchSession(id.text(uppercase: false)) }
        defer { if sessions[id] != nil { sessions[id] = session } }
        return try await body(&session)
    }

    /// Journals `events`, then applies them to `session`: the same values, recorded and applied.
    func record(_ events: [SessionEvent], on session: inout Session) async throws(SessionError) {
        try await persist(events)
        for event in events {
            do {
                try session.apply(event)
            } catch {
                throw .replayMismatch(error)
            }
        }
        if events.contains(where: \.closesSession) {
            noteClosed(session)
            forgetParadata(session.id)
        }
    }

    /// Journals a `stageStarted` event, then moves `session` on to that stage.
    func recordStart(_ event: SessionEvent, _ definition: LoadedDefinition, on session: inout Session) async throws(SessionError) {
        try await persist([event])
        do {
            try session.startStage(event, questionnaire: definition.questionnaire)
        } catch {
            throw .replayMismatch(error)
        }
        stageBegan(session.id)
    }

    /// Closes `session` with `outcome`.
    func close(_ session: inout Session, _ outcome: SessionOutcome) async throws(SessionError) {
        try await record([.closed(session: session.id, outcome: outcome, at: now())], on: &session)
        logger.info("session closed", metadata: ["session": "\(session.id)", "outcome": "\(outcome.rawValue)"])
    }

    /// Appends `events` to the journal; returns once they are durable. Waits while a compaction
    /// holds the journal.
    func persist(_ events: [SessionEvent]) async throws(SessionError) {
        await journalGate.enterShared()
        defer { journalGate.leaveShared() }
        // A compaction may have retired the session while this request waited: nothing more is
        // recorded on it (only a stageStarted, and what comes with it, may name a session that is
        // not in memory: a new one).
        let starting = Set(events.compactMap { event -> UUID? in
            if case .stageStarted(let id, _, _, _, _) = event { return id }
            return nil
        })
        if let gone = events.first(where: { event in
            if starting.contains(event.session) { return false }
            return sessions[event.session] == nil
        }) {
            throw .retired(gone.session)
        }
        do {
            try await journal.append(events)
        } catch {
            logger.error("journal append failed", metadata: ["error": "\(error)"])
            throw .journalUnavailable(error)
        }
        let at = timeline.elapsed()
        for event in events {
            history[event.session, default: []].append(event)
            activeAt[event.session] = at
        }
        metrics.journaled(events) { sessions[$0] == nil }
    }

    // MARK: Helpers

    /// The session a request names, or the only open one when it names none.
    func resolve(_ id: String?) throws(SessionError) -> UUID {
        if let id {
            // The whole id, strictly: `UUID(uuidString:)` stops at a NUL and took `<id>\0junk` for `<id>`.
            guard let uuid = UUID(canonicalText: id), sessions[uuid] != nil else { throw .noSuchSession(id) }
            return uuid
        }
        let open = sessions.values.filter(\.isOpen)
        switch open.count {
        case 1: return open[0].id
        case 0: throw SessionError(.noOpenSession, "no session is open; start one with `surveyctl start`")
        default:
            let ids = open.sorted { $0.lastActivity < $1.lastActivity }.map { $0.id.text(uppercase: false) }
            throw SessionError(.severalOpen, "\(open.count) sessions are open (\(ids.joined(separator: ", "))); name one with --session ID")
        }
    }

    /// Whether `session` has been idle longer than the idle timeout, on the monotonic clock (a
    /// session never seen active, which cannot happen, counts as active at the timeline's start).
    func isIdle(_ session: Session) -> Bool {
        timeline.elapsed() - (activeAt[session.id] ?? .zero) > settings.idleTimeout
    }

    /// The respondent of `id` did something that journals nothing (an answer the checks
    /// refused): the idle timeout counts from now.
    func noteActivity(_ id: UUID) {
        activeAt[id] = timeline.elapsed()
    }

    /// How long ago, on the timeline, a wall-clock `date` read back from the journal was: never
    /// less than zero (a date in the future is a clock that was stepped back while the daemon
    /// was down), so a duration that counts from it ends at most that duration after the
    /// restart, whatever the clock did meanwhile.
    func anchor(_ date: Date) -> Duration {
        let age = max(0, now().timeIntervalSince(date))
        return timeline.elapsed() - .seconds(age)
    }
}

extension SessionError {
    /// A definition source's error, as sessions report it.
    init(_ error: DefinitionSourceError) {
        switch error.code {
        case .noSuchStage: self.init(.noSuchStage, error.message)
        case .unavailable: self.init(.definitionUnavailable, error.message)
        case .invalid: self.init(.definitionInvalid, error.message)
        }
    }
}

import ControlAPI
import Entities
import Foundation
import Logging
import Storage

/// Runs every respondent session of the daemon.
///
/// Each accepted answer is journaled before the reply; a completed stage is queued with a fixed
/// idempotency key, and the respondent waits at most ``Settings/deliveryWait`` for its delivery
/// before the outcome is `queued`. Requests for one session are handled one at a time; state is
/// re-checked after every suspension.
public actor SessionManager {
    public struct Settings: Sendable {
        public var defaultLanguage: String
        public var idleTimeout: Duration
        public var deliveryWait: Duration

        public init(defaultLanguage: String, idleTimeout: Duration, deliveryWait: Duration) {
            self.defaultLanguage = defaultLanguage
            self.idleTimeout = idleTimeout
            self.deliveryWait = deliveryWait
        }
    }

    let journal: any SessionJournal
    let definitions: any DefinitionSource
    let queue: any SubmissionSink
    let settings: Settings
    let now: @Sendable () -> Date
    let logger: Logger

    var sessions: [UUID: Session] = [:]
    /// Sessions with a request in progress, and the requests waiting for them.
    var busy: [UUID: [CheckedContinuation<Void, Never>]] = [:]
    /// Sessions waiting for the delivery of a stage, by idempotency key.
    var deliveryWaiters: [UUID: CheckedContinuation<SubmissionState?, Never>] = [:]
    /// Deliveries that finished before their session started waiting for them.
    var earlyOutcomes: [UUID: SubmissionState] = [:]
    /// The answer each session accepted last, with its question: a repeat of it returns the
    /// session as it stands instead of answering again. In memory only.
    var lastAnswers: [UUID: AcceptedAnswer] = [:]
    /// Problems met while rebuilding sessions, for `surveyctl status` (`SessionManager+Restore.swift`).
    public internal(set) var restoreProblems: [String] = []
    /// The journaled events of every session in memory (and of sessions that could not be
    /// restored), in order: what a journal compaction writes again.
    var history: [UUID: [SessionEvent]] = [:]
    /// Appends in progress, and whether a compaction holds the journal (appends wait for it).
    var appending = 0
    var compacting = false
    var waitingAppends: [CheckedContinuation<Void, Never>] = []
    var waitingCompaction: CheckedContinuation<Void, Never>?

    public init(journal: any SessionJournal, definitions: any DefinitionSource, queue: any SubmissionSink, settings: Settings, now: @escaping @Sendable () -> Date = { Date() }, logger: Logger) {
        self.journal = journal
        self.definitions = definitions
        self.queue = queue
        self.settings = settings
        self.now = now
        self.logger = logger
    }

    // MARK: Control API

    public func start(_ request: StartSessionRequest) async throws(ControlError) -> SessionView {
        let stage = request.typeId ?? "common"
        let language = request.lang ?? settings.defaultLanguage
        guard Language(rawValue: language) != nil else {
            throw ControlError.badRequest("bad_language", "lang must be \(Language.choices), not \"\(language)\"")
        }
        let definition = try await loadDefinition(stage: stage, language: language, earlierAnswers: [])
        let id = UUID()
        let time = now()
        let event = SessionEvent.stageStarted(session: id, stage: stage, language: language, definitionHash: definition.hash, at: time)
        try await persist([event])
        let session = Session(id: id, stage: stage, language: language, definitionHash: definition.hash, questionnaire: definition.questionnaire, startedAt: time)
        sessions[id] = session
        logger.info("session started", metadata: ["session": "\(id)", "stage": "\(stage)", "lang": "\(language)"])
        return session.view()
    }

    public func view(id: String) throws(ControlError) -> SessionView {
        guard let uuid = UUID(canonicalText: id), let session = sessions[uuid] else { throw noSuchSession(id) }
        return session.view()
    }

    /// Open sessions, oldest activity first.
    public func openSessions() -> [SessionView] {
        sessions.values.filter(\.isOpen).sorted { $0.lastActivity < $1.lastActivity }.map { $0.view() }
    }

    // MARK: Delivery

    /// Called by the delivery worker when a submission's fate is known.
    public func deliveryFinished(key: UUID, state: SubmissionState) async {
        if let waiter = deliveryWaiters.removeValue(forKey: key) {
            waiter.resume(returning: state)
            return
        }
        // Nobody waits: the respondent left with `queued`, the daemon restarted meanwhile, or the
        // answer that completed the stage has not started waiting yet (it holds the lock).
        guard let id = sessions.first(where: { $0.value.lastCompletedKey == key })?.key else { return }
        earlyOutcomes[key] = state
        await lock(id)
        defer { unlock(id) }
        guard earlyOutcomes.removeValue(forKey: key) != nil else { return }  // consumed by the waiting answer
        guard var session = sessions[id] else { return }
        do {
            switch (session.state, state) {
            case (.closed(.queued), .delivered(let next?)):
                try await persist([.followUpNamed(session: id, stage: next, at: now())])
                try apply(.followUpNamed(session: id, stage: next, at: now()), to: &session)
                sessions[id] = session
            case (.awaitingDelivery, _):
                try await proceed(&session, after: state)
            default:
                break
            }
        } catch {
            logger.error("cannot record a delivery on its session", metadata: ["session": "\(id)", "error": "\(error)"])
        }
    }

    /// Queues the completed stage and waits briefly for its delivery. When it cannot be queued,
    /// the session stays complete and housekeeping queues it later.
    func completeStage(_ session: inout Session, key: UUID) async throws(ControlError) {
        let submission = SubmissionRequest(
            session: session.id, stage: session.stage, language: session.language,
            body: session.upload.encoded(), idempotencyKey: key,
            definitionHash: session.definitionHash, queuedAt: now()
        )
        do {
            try await queue.enqueue(submission)
        } catch {
            throw ControlError.unavailable("queue_failed", "the answers are saved, but stage \(session.stage) could not be queued (\(error)); surveyd queues it again within a minute. Check `surveyctl status` for the queue and the journal.")
        }
        let state = await waitForDelivery(key: key, timeout: settings.deliveryWait)
        guard var current = sessions[session.id], case .awaitingDelivery(key) = current.state else { return }
        try await proceed(&current, after: state ?? .pending)
        session = current
    }

    /// What happens once a completed stage is delivered (or not in time).
    func proceed(_ session: inout Session, after state: SubmissionState) async throws(ControlError) {
        switch state {
        case .delivered(let next?):
            do {
                let definition = try await loadDefinition(stage: next, language: session.language, earlierAnswers: Set(session.allAnswers.keys))
                let event = SessionEvent.stageStarted(session: session.id, stage: next, language: session.language, definitionHash: definition.hash, at: now())
                try await persist([event])
                try startStage(event, definition, on: &session)
            } catch {
                // The follow-up cannot be asked now: record it on the session, which ends as queued.
                logger.warning("follow-up stage unavailable", metadata: ["session": "\(session.id)", "stage": "\(next)", "error": "\(error)"])
                try await persist([.followUpNamed(session: session.id, stage: next, at: now())])
                try apply(.followUpNamed(session: session.id, stage: next, at: now()), to: &session)
                try await close(&session, .queued)
            }
        case .delivered(nil):
            try await close(&session, .thanks)
        case .pending, .dead:
            try await close(&session, .queued)
        }
        sessions[session.id] = session
    }

    func waitForDelivery(key: UUID, timeout: Duration) async -> SubmissionState? {
        let queued = try? await queue.state(of: key)
        if let early = earlyOutcomes.removeValue(forKey: key) { return early }
        if let queued, queued != .pending { return queued }
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            await self?.deliveryTimedOut(key: key)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { deliveryWaiters[key] = $0 }
    }

    func deliveryTimedOut(key: UUID) {
        deliveryWaiters.removeValue(forKey: key)?.resume(returning: nil)
    }

    // MARK: Housekeeping

    /// Closes sessions idle longer than the timeout as `abandoned`. Returns how many.
    @discardableResult
    public func closeIdleSessions() async -> Int {
        var closed = 0
        let candidates = sessions.filter { id, session in
            if case .asking = session.state { return isIdle(session) && busy[id] == nil }
            return false
        }.keys
        for id in candidates {
            await lock(id)
            defer { unlock(id) }
            guard var current = sessions[id], current.isOpen, isIdle(current) else { continue }
            do {
                try await close(&current, .abandoned)
                closed += 1
            } catch {
                logger.error("cannot close an idle session", metadata: ["session": "\(id)", "error": "\(error)"])
            }
        }
        return closed
    }

    /// Makes sure every completed stage that no request is waiting on is queued: queues it again
    /// when the queue does not know it (queueing failed, or a crash came first), and moves the
    /// session on when its delivery was settled meanwhile. A session that still fails is logged
    /// and left for the next call (housekeeping calls this periodically). Returns how many
    /// stages it queued.
    @discardableResult
    public func settleCompletedStages() async -> Int {
        var queued = 0
        for (id, session) in sessions where busy[id] == nil {
            guard case .awaitingDelivery(let key) = session.state else { continue }
            await lock(id)
            defer { unlock(id) }
            guard var current = sessions[id], case .awaitingDelivery(key) = current.state else { continue }
            do {
                let state = try await queue.state(of: key)
                if state == nil {
                    try await queue.enqueue(SubmissionRequest(
                        session: id, stage: current.stage, language: current.language, body: current.upload.encoded(),
                        idempotencyKey: key, definitionHash: current.definitionHash, queuedAt: now()
                    ))
                    queued += 1
                    logger.info("completed stage queued", metadata: ["session": "\(id)", "stage": "\(current.stage)"])
                } else if let state, state != .pending {
                    try await proceed(&current, after: state)
                }
            } catch {
                logger.error("a completed stage cannot be queued yet; it is tried again later", metadata: ["session": "\(id)", "stage": "\(current.stage)", "error": "\(error)"])
            }
        }
        return queued
    }

    /// The definition hashes that sessions in the journal were started with: a restart needs
    /// each of them from the cache to rebuild its session.
    public func definitionHashesInUse() -> Set<String> {
        var hashes = Set<String>()
        for events in history.values {
            for case .stageStarted(_, _, _, let hash, _) in events { hashes.insert(hash) }
        }
        return hashes
    }

    /// What a journal compaction did.
    public struct JournalCompaction: Sendable, Hashable {
        /// Sessions dropped from memory and from the journal.
        public var retired: Int
        /// Sessions written again into the snapshot.
        public var kept: Int
    }

    /// Retires sessions closed more than `retention` ago (those that ended `queued` only once
    /// their upload is no longer pending) and rewrites the session journal as one snapshot of the
    /// rest, removing the old segments. Answers wait while it runs. Does nothing when no session
    /// can be retired.
    @discardableResult
    public func compactJournal(retention: Duration) async throws -> JournalCompaction {
        while compacting { await withCheckedContinuation { waitingAppends.append($0) } }
        compacting = true
        defer {
            compacting = false
            let waiters = waitingAppends
            waitingAppends = []
            for waiter in waiters { waiter.resume() }
        }
        if appending > 0 { await withCheckedContinuation { waitingCompaction = $0 } }
        let cutoff = now().addingTimeInterval(-retention.timeInterval)
        var retired: Set<UUID> = []
        for (id, session) in sessions where busy[id] == nil {
            guard case .closed(let outcome) = session.state, session.lastActivity < cutoff else { continue }
            if outcome == .queued, let key = session.lastCompletedKey, try await queue.state(of: key) == .pending { continue }
            retired.insert(id)
        }
        guard !retired.isEmpty else { return JournalCompaction(retired: 0, kept: history.count) }
        // Oldest first, so that a replay rebuilds sessions in the order they began.
        let kept = history.filter { !retired.contains($0.key) }.values.sorted { ($0.first?.time ?? .distantPast) < ($1.first?.time ?? .distantPast) }
        try await journal.compact(keeping: kept)
        for id in retired {
            sessions[id] = nil
            history[id] = nil
        }
        logger.info("session journal compacted", metadata: ["retired": "\(retired.count)", "kept": "\(kept.count)"])
        return JournalCompaction(retired: retired.count, kept: kept.count)
    }

    func isIdle(_ session: Session) -> Bool {
        now().timeIntervalSince(session.lastActivity) > settings.idleTimeout.timeInterval
    }

    // MARK: Helpers

    func resolve(_ id: String?) throws(ControlError) -> UUID {
        if let id {
            // The whole id, strictly: `UUID(uuidString:)` stops at a NUL and took `<id>\0junk` for `<id>`.
            guard let uuid = UUID(canonicalText: id), sessions[uuid] != nil else { throw noSuchSession(id) }
            return uuid
        }
        let open = sessions.values.filter(\.isOpen)
        switch open.count {
        case 1: return open[0].id
        case 0: throw ControlError.conflict("no_open_session", "no session is open; start one with `surveyctl start`")
        default:
            let ids = open.sorted { $0.lastActivity < $1.lastActivity }.map { $0.id.text(uppercase: false) }
            throw ControlError.conflict("several_sessions", "\(open.count) sessions are open (\(ids.joined(separator: ", "))); name one with --session ID")
        }
    }

    func noSuchSession(_ id: String) -> ControlError {
        ControlError.notFound("no_such_session", "no session \(Self.shown(id)); `surveyctl status` lists the open sessions")
    }

    /// An id from a client as a message shows it: as it came when it is short and printable,
    /// else quoted with its control characters escaped and cut at 80 characters.
    static func shown(_ id: String) -> String {
        if id.count <= 80, !id.isEmpty, id.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control && $0 != " " }) { return id }
        return String(id.prefix(80)).debugDescription + (id.count > 80 ? "…" : "")
    }

    func persist(_ events: [SessionEvent]) async throws(ControlError) {
        while compacting { await withCheckedContinuation { waitingAppends.append($0) } }
        // A compaction may have retired the session while this request waited: nothing more is
        // recorded on it (only a stageStarted may name a session that is not in memory: a new one).
        if let gone = events.first(where: { event in
            if case .stageStarted = event { return false }
            return sessions[event.session] == nil
        }) {
            throw ControlError.conflict("session_closed", "session \(gone.session.text(uppercase: false)) was closed and retired; start a new one with `surveyctl start`")
        }
        appending += 1
        defer {
            appending -= 1
            if appending == 0, let waiter = waitingCompaction {
                waitingCompaction = nil
                waiter.resume()
            }
        }
        do {
            try await journal.append(events)
        } catch {
            logger.error("journal append failed", metadata: ["error": "\(error)"])
            throw ControlError.unavailable("journal_unavailable", "the answer could not be saved durably (\(error)), so it was not accepted; check `surveyctl status` and the state directory, then answer again")
        }
        for event in events { history[event.session, default: []].append(event) }
    }

    func apply(_ event: SessionEvent, to session: inout Session) throws(ControlError) {
        do {
            try session.apply(event)
        } catch {
            throw ControlError(status: 500, code: SessionReplayError.code, error.description)
        }
    }

    func startStage(_ event: SessionEvent, _ definition: LoadedDefinition, on session: inout Session) throws(ControlError) {
        do {
            try session.startStage(event, questionnaire: definition.questionnaire)
        } catch {
            throw ControlError(status: 500, code: SessionReplayError.code, error.description)
        }
    }

    func close(_ session: inout Session, _ outcome: SessionOutcome) async throws(ControlError) {
        let event = SessionEvent.closed(session: session.id, outcome: outcome, at: now())
        try await persist([event])
        try apply(event, to: &session)
        sessions[session.id] = session
        logger.info("session closed", metadata: ["session": "\(session.id)", "outcome": "\(outcome.rawValue)"])
    }

    func lock(_ id: UUID) async {
        if busy[id] == nil {
            busy[id] = []
            return
        }
        await withCheckedContinuation { busy[id, default: []].append($0) }
    }

    func unlock(_ id: UUID) {
        guard var waiters = busy[id], !waiters.isEmpty else {
            busy[id] = nil
            return
        }
        let next = waiters.removeFirst()
        busy[id] = waiters
        next.resume()
    }
}

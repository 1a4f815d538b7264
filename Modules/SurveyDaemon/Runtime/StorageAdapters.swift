import ControlAPI
import Entities
import Foundation
import Storage
import Synchronization

/// The session journal on the Storage journal: each `append` call is one record (a JSON array
/// of events), so the events of one answer become durable together with one fdatasync.
public struct StoredSessionJournal: SessionJournal {
    let events: EventJournal<[SessionEvent]>

    public init(journal: Journal) {
        events = EventJournal(journal: journal)
    }

    public func append(_ events: [SessionEvent]) async throws {
        guard !events.isEmpty else { return }
        _ = try await self.events.append(encoded: Self.record(events))
    }

    /// The record of `events`: the JSON `JSONEncoder` gives for them (keys in declaration order),
    /// written by hand for a fraction of the encoder's CPU per answer.
    static func record(_ events: [SessionEvent]) -> [UInt8] {
        var out = JSONOutput(escapesSlashes: true)
        out.array { out in
            for event in events { event.write(to: &out) }
        }
        return out.bytes
    }

    public func replay() async throws -> [SessionEvent] {
        try events.replay().flatMap(\.event)
    }

    /// One snapshot record holding every kept session's events; older segments are removed.
    public func compact(keeping sessions: [[SessionEvent]]) async throws {
        try await events.compact(keeping: sessions)
    }
}

/// Whom to wake when a submission is queued or requeued; set once the delivery worker exists.
public final class WakeHook: Sendable {
    private let action = Mutex<(@Sendable () async -> Void)?>(nil)
    public init() {}
    public func set(_ wake: @escaping @Sendable () async -> Void) { action.withLock { $0 = wake } }
    func callAsFunction() async { await action.withLock { $0 }?() }
}

/// The Storage submission queue as sessions, the delivery worker and the control API see it.
/// Submission ids on the control API are the queue's ordinals, in their canonical decimal text.
public struct StoredSubmissionQueue: SubmissionSink, DeliveryQueue, QueueInspector {
    public let queue: SubmissionQueue
    let wake: WakeHook
    let problems: @Sendable () -> [String]
    /// Journals to report besides the queue's own, by name.
    let otherJournals: [(name: String, journal: Journal)]

    /// - Parameter problems: journal problems beyond the queue's own (the session journal's).
    /// - Parameter otherJournals: journals whose health status shows before the queue's.
    public init(queue: SubmissionQueue, wake: WakeHook, problems: @escaping @Sendable () -> [String] = { [] }, otherJournals: [(name: String, journal: Journal)] = []) {
        self.queue = queue
        self.wake = wake
        self.problems = problems
        self.otherJournals = otherJournals
    }

    // MARK: SubmissionSink

    public func enqueue(_ submission: SubmissionRequest) async throws {
        let metadata = SubmissionMetadata(
            key: submission.idempotencyKey, stage: submission.stage, language: submission.language,
            definitionHash: submission.definitionHash, queuedAt: submission.queuedAt, session: submission.session)
        try await queue.enqueue(metadata, body: [UInt8](submission.body))
        await wake()
    }

    public func state(of key: UUID) async throws -> DeliveryState? {
        switch await queue.state(of: key) {
        case nil: nil
        case .pending?: .pending
        case .delivered(let response)?: .delivered(nextTypeId: response)
        case .dead(let reason)?: .dead(reason: reason)
        }
    }

    // MARK: DeliveryQueue

    public func pending(limit: Int, excluding: Set<String>) async throws -> [PendingSubmission] {
        await queue.pending(limit: limit, excluding: Set(excluding.compactMap(Self.parseOrdinal))).map { submission in
            PendingSubmission(id: String(submission.ordinal), stage: submission.metadata.stage, language: submission.metadata.language, idempotencyKey: submission.idempotencyKey, queuedAt: submission.metadata.queuedAt, queuedKey: submission.metadata.key)
        }
    }

    public func body(of submission: PendingSubmission) async throws -> Data {
        Data(try await queue.body(ordinal: try Self.ordinal(submission.id)))
    }

    public func markDelivered(_ submission: PendingSubmission, nextTypeId: String?) async throws {
        try await queue.markDelivered(ordinal: try Self.ordinal(submission.id), response: nextTypeId)
    }

    public func markDead(_ submission: PendingSubmission, reason: String, outcome: DeadLetterOutcome) async throws {
        try await queue.markDead(ordinal: try Self.ordinal(submission.id), reason: reason, outcome: outcome == .rejected ? .rejected : .unknown)
    }

    // MARK: QueueInspector

    public func counts() async throws -> QueueCounts {
        let counts = await queue.counts()
        return QueueCounts(pending: counts.pending, dead: counts.dead, delivered: counts.delivered, oldestPendingAt: counts.oldestPendingAt)
    }

    public func deadLetters() async throws -> [DeadLetter] {
        await queue.dead().map(Self.letter)
    }

    public func requeue(deadLetter id: String, key: RequeueRequest.Key?) async throws -> DeadLetter? {
        guard let ordinal = Self.parseOrdinal(id) else { return nil }
        let choice: RequeueKey = switch key {
        case nil: .byOutcome
        case .keep?: .keep
        case .new?: .new
        }
        let letter = await queue.dead().first { $0.submission.ordinal == ordinal }
        guard var letter, let requeued = try await queue.requeue(ordinal: ordinal, key: choice) else { return nil }
        await wake()
        let previous = letter.submission.idempotencyKey
        letter.submission = requeued
        var view = Self.letter(letter)
        if requeued.idempotencyKey != previous { view.previousIdempotencyKey = previous }
        return view
    }

    public func journalProblems() async -> [String] {
        queue.problems + problems()
    }

    public func journalHealth() async -> [StatusView.Journal] {
        (otherJournals + [("queue", queue.journal)]).map { Self.health(name: $0.name, of: $0.journal) }
    }

    static func health(name: String, of journal: Journal) -> StatusView.Journal {
        guard let failure = journal.currentFailure else { return StatusView.Journal(name: name, state: "ok") }
        return StatusView.Journal(name: name, state: "failed", call: failure.call, cause: failure.errnoName, causeText: failure.errnoText, since: failure.since.iso8601Seconds)
    }

    static func letter(_ dead: DeadSubmission) -> DeadLetter {
        DeadLetter(
            id: String(dead.submission.ordinal), stage: dead.submission.metadata.stage, language: dead.submission.metadata.language, reason: dead.reason,
            idempotencyKey: dead.submission.idempotencyKey, queuedAt: dead.submission.metadata.queuedAt,
            outcome: dead.outcome == .rejected ? .rejected : .unknown)
    }

    /// The ordinal an id names, read strictly: the whole text is the canonical decimal form of a
    /// 64-bit number (digits only, no sign, no leading zero, no spaces); nil otherwise, so that
    /// `+5`, `05` or `5 ` never name submission 5.
    static func parseOrdinal(_ id: String) -> UInt64? {
        let digits = id.utf8
        guard let first = digits.first, digits.count <= 20, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
        return UInt64(id)
    }

    static func ordinal(_ id: String) throws -> UInt64 {
        guard let ordinal = parseOrdinal(id) else {
            throw StorageError(code: .notFound, message: "\"\(id)\" is not a submission id of the queue; ids are numbers, as `surveyctl dead` shows them.")
        }
        return ordinal
    }
}

public import ControlAPI
import Entities
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import NIOCore
public import Storage

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

    /// The events since the newest snapshot. Segments older than that snapshot, which a crash
    /// during a compaction left behind, are removed first: they may hold erased answers.
    public func replay() async throws -> [SessionEvent] {
        try events.removeSegmentsBeforeSnapshot()
        return try events.replay().flatMap(\.event)
    }

    /// One snapshot record holding every kept session's events; older segments are removed.
    /// The listing and the removal block, so they run on the concurrency pool whatever the
    /// caller's task prefers: the erasure service's compaction was once caught (by
    /// `BlockingCallCheck`) listing the segments on an event loop's thread.
    public func compact(keeping sessions: [[SessionEvent]]) async throws {
        try await onPool { try await events.compact(keeping: sessions) }
    }
}

/// The Storage submission queue as sessions, the delivery worker and the control API see it.
/// It wakes the delivery worker whenever a submission becomes pending (queued or requeued).
///
/// The queue's actor runs on a thread of its own (`QueueExecutor` in Storage), so its blocking
/// file calls (a body, an export, a purge, a compaction) never run on the caller's thread, an
/// event loop included: a request handled on a loop awaits them, suspended.
public struct StoredSubmissionQueue: SubmissionSink, DeliveryQueue, QueueInspector {
    public let queue: SubmissionQueue
    let wakeup: DeliveryWakeup
    /// Counts the stages queued.
    var metrics: DaemonMetrics = .disabled
    let problems: @Sendable () -> [String]
    /// Journals to report besides the queue's own, by name.
    let otherJournals: [(name: String, journal: Journal)]

    /// - Parameters:
    ///   - wakeup: the delivery worker's.
    ///   - problems: journal problems beyond the queue's own (the session journal's).
    ///   - otherJournals: journals whose health status shows before the queue's.
    public init(queue: SubmissionQueue, wakeup: DeliveryWakeup, problems: @escaping @Sendable () -> [String] = { [] }, otherJournals: [(name: String, journal: Journal)] = []) {
        self.queue = queue
        self.wakeup = wakeup
        self.problems = problems
        self.otherJournals = otherJournals
    }

    // MARK: SubmissionSink

    public func enqueue(_ submission: SubmissionRequest) async throws {
        let metadata = SubmissionMetadata(
            key: submission.idempotencyKey, stage: submission.stage, language: submission.language,
            definitionHash: submission.definitionHash, queuedAt: submission.queuedAt, session: submission.session, headers: submission.headers)
        _ = try await queue.enqueue(metadata, body: [UInt8](submission.body))
        metrics.submissionQueued()
        wakeup.wake()
    }

    public func state(of key: UUID) async throws -> SubmissionState? {
        await queue.state(of: key)
    }

    // MARK: DeliveryQueue

    public func pending(limit: Int, excluding: Set<SubmissionID>) async throws -> [QueuedSubmission] {
        await queue.pending(limit: limit, excluding: excluding)
    }

    public func body(of id: SubmissionID) async throws -> ByteBuffer {
        // The one copy between the disk and the HTTP client's buffer.
        ByteBuffer(bytes: try await queue.body(of: id))
    }

    /// One trip to the queue's thread for all of them.
    public func bodies(of ids: [SubmissionID]) async -> [Result<StoredUpload, any Error>] {
        await queue.uploads(of: ids).map { $0.map { StoredUpload(body: ByteBuffer(bytes: $0.body), headers: $0.headers) } }
    }

    public func markDelivered(_ id: SubmissionID, nextTypeId: String?) async throws {
        try await queue.markDelivered(id, response: nextTypeId)
    }

    public func markDead(_ id: SubmissionID, reason: String, outcome: DeadOutcome) async throws {
        try await queue.markDead(id, reason: reason, outcome: outcome)
    }

    // MARK: QueueInspector

    public func counts() async throws -> SubmissionQueueCounts {
        await queue.counts()
    }

    public func deadLetters() async throws -> [DeadSubmission] {
        await queue.dead()
    }

    public func requeue(_ id: SubmissionID, key: RequeueKey) async throws -> RequeuedLetter? {
        guard let letter = await queue.deadLetter(id), let requeued = try await queue.requeue(id, key: key) else { return nil }
        wakeup.wake()
        return RequeuedLetter(letter: letter, submission: requeued)
    }

    public func journalProblems() async -> [String] {
        queue.problems + problems()
    }

    public func journalHealth() async -> [StatusView.Journal] {
        (otherJournals + [("queue", queue.journal)]).map { Self.health(name: $0.name, of: $0.journal) }
    }

    public func journalDiskBytes() async -> [(name: String, bytes: Int)] {
        (otherJournals + [("queue", queue.journal)]).map { ($0.name, $0.journal.diskBytes) }
    }

    static func health(name: String, of journal: Journal) -> StatusView.Journal {
        guard let failure = journal.currentFailure else { return StatusView.Journal(name: name, state: "ok") }
        return StatusView.Journal(name: name, state: "failed", call: failure.call, cause: failure.errnoName, causeText: failure.errnoText, since: failure.since.iso8601Seconds)
    }
}

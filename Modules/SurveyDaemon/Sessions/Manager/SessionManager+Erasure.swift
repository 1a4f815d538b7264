#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Logging
import Storage

/// Erasure: once a session is closed and its answers are no longer needed (every stage delivered,
/// screened out, abandoned, or ended `queued` and its upload since delivered or its dead letter
/// dropped), its answers wait for erasure; ``eraseAnswers(waitedAtLeast:)`` then rewrites the
/// journal without them and removes the older segments. A session listed as a follow-up
/// (`surveyctl status`) stays, its answer events replaced by `answersErased`, until a compaction
/// retires it; every other one is retired at once, which keeps the snapshots that erasures write
/// small (a busy kiosk writes one every few minutes).
///
/// The delay is measured on the manager's monotonic clock (``ErasureWait/at``): a step of the
/// wall clock neither keeps answers on disk longer nor erases them sooner. The wall-clock date
/// (``ErasureWait/since``) is what `surveyctl status` shows.
extension SessionManager {
    /// Since when a closed session's answers have waited for erasure.
    struct ErasureWait: Sendable {
        /// The wall-clock date, for people.
        var since: Date
        /// The same moment on ``SessionManager/timeline``: what the delay is judged on.
        var at: Duration
    }

    /// Since when the answers that wait longest for erasure have waited (a wall-clock date, for
    /// people); nil when none wait.
    public func oldestAwaitingErasure() -> Date? {
        awaitingErasure.values.min { $0.at < $1.at }?.since
    }

    /// How long the answers that wait longest for erasure have waited, on the monotonic clock;
    /// nil when none wait.
    public func longestErasureWait() -> Duration? {
        awaitingErasure.values.map(\.at).min().map { timeline.elapsed() - $0 }
    }

    /// How many closed sessions' answers wait for erasure.
    public func sessionsAwaitingErasure() -> Int {
        awaitingErasure.count
    }

    /// Erases from the journal the answers of every closed session that has waited at least
    /// `delay` (nil: every one, now): writes the journal again as one snapshot in which those
    /// sessions hold no answers (a follow-up keeps its events without them; any other is left
    /// out and retired), removes the older segments, and forgets the answers in memory. Answers
    /// wait while it runs. Returns how many sessions' answers were erased.
    @discardableResult
    public func eraseAnswers(waitedAtLeast delay: Duration?) async throws -> Int {
        await noteSettledUploads()
        let current = timeline.elapsed()
        let due = awaitingErasure.filter { _, wait in delay.map { current - wait.at >= $0 } ?? true }.keys.sorted { $0.uuidString < $1.uuidString }
        guard !due.isEmpty else { return 0 }
        // Every request of these sessions waits (they are closed: nothing but a late delivery
        // record comes), so no request writes back a copy that still holds answers.
        for id in due { await locks.acquire(id) }
        defer { for id in due { locks.release(id) } }
        await journalGate.enterExclusive()
        defer { journalGate.leaveExclusive() }
        // A compaction may have retired some meanwhile.
        let erasing = due.filter { awaitingErasure[$0] != nil }
        guard !erasing.isEmpty else { return 0 }
        var rewritten = history
        var retiring: Set<UUID> = []
        for id in erasing {
            if sessions[id]?.followUp != nil {
                rewritten[id] = history[id].map(Self.withoutAnswers)
            } else {
                rewritten[id] = nil
                retiring.insert(id)
            }
        }
        // Oldest first, as a compaction writes them.
        let kept = rewritten.values.sorted { ($0.first?.time ?? .distantPast) < ($1.first?.time ?? .distantPast) }
        try await journal.compact(keeping: kept)
        history = rewritten
        for id in erasing {
            if retiring.contains(id) { sessions[id] = nil } else { sessions[id]?.eraseAnswers() }
            lastAnswers[id] = nil
            awaitingErasure[id] = nil
            if retiring.contains(id) {
                activeAt[id] = nil
                closedAt[id] = nil
            }
        }
        logger.info("answers erased", metadata: ["sessions": "\(erasing.count)", "retired": "\(retiring.count)", "kept": "\(kept.count)"])
        return erasing.count
    }

    /// `events` of one session with every run of answer events (`answerAccepted`,
    /// `answerSkipped`, `wentBack`) replaced by one `answersErased` at the position the run
    /// ended: the same session replays from them, without a word the respondent typed.
    static func withoutAnswers(_ events: [SessionEvent]) -> [SessionEvent] {
        var result: [SessionEvent] = []
        var position = 0
        var run = false
        for event in events {
            switch event {
            case .answerAccepted, .answerSkipped:
                position += 1
                run = true
            case .wentBack:
                position = max(0, position - 1)
                run = true
            case .answersErased(_, let erasedAt):
                position = erasedAt
                run = true
            case .active:
                // A date for the idle timeout of an open session: a closed one has its own.
                continue
            case .stageStarted, .stageCompleted, .closed, .followUpNamed, .consentGiven:
                if run { result.append(.answersErased(session: event.session, position: position)) }
                run = false
                if case .stageStarted = event { position = 0 }
                result.append(event.withoutQuality)
            }
        }
        if run, let last = events.last { result.append(.answersErased(session: last.session, position: position)) }
        return result
    }

    /// A session was closed: its answers wait for erasure from now, or, when it ended `queued`,
    /// once its upload is settled.
    func noteClosed(_ session: Session) {
        guard case .closed(let outcome) = session.state else { return }
        activeAt[session.id] = nil
        closedAt[session.id] = timeline.elapsed()
        if outcome == .queued {
            awaitingUpload.insert(session.id)
        } else if awaitingErasure[session.id] == nil {
            awaitingErasure[session.id] = ErasureWait(since: now(), at: timeline.elapsed())
            erasureWakeup.wake()
        }
    }

    /// The upload of a session that ended `queued` was delivered (or dropped): its answers wait
    /// for erasure from now.
    func noteUploadSettled(_ id: UUID) {
        guard awaitingUpload.remove(id) != nil else { return }
        awaitingErasure[id] = ErasureWait(since: now(), at: timeline.elapsed())
        erasureWakeup.wake()
    }

    /// Asks the queue where the uploads of sessions that ended `queued` stand: a delivered one,
    /// or one the queue no longer knows (a dead letter dropped, or delivered long ago), settles
    /// its session's wait.
    func noteSettledUploads() async {
        for id in awaitingUpload {
            guard let key = sessions[id]?.lastCompletedKey else {
                noteUploadSettled(id)
                continue
            }
            do {
                switch try await queue.state(of: key) {
                case nil, .delivered?: noteUploadSettled(id)
                case .pending?, .dead?: continue
                }
            } catch {
                continue  // asked again at the next erasure
            }
        }
    }

    /// After a restart: closed sessions whose events still hold answers wait for erasure from
    /// when they closed (those that ended `queued`, once their upload is settled), re-anchored on
    /// the monotonic clock: at most the delay after the restart, whatever the wall clock did
    /// while the daemon was down (``anchor(_:)``).
    func noteRestoredErasures() {
        for (id, session) in sessions {
            guard case .closed(let outcome) = session.state, history[id]?.contains(where: \.holdsAnswer) == true else { continue }
            if outcome == .queued {
                awaitingUpload.insert(id)
            } else {
                awaitingErasure[id] = ErasureWait(since: session.lastActivity, at: anchor(session.lastActivity))
            }
        }
    }
}

extension SessionEvent {
    /// Whether the event ends its session.
    var closesSession: Bool {
        if case .closed = self { return true }
        return false
    }

    /// Whether the event holds something the respondent gave (an answer, or which question was
    /// skipped or gone back to).
    var holdsAnswer: Bool {
        switch self {
        case .answerAccepted, .answerSkipped, .wentBack: true
        case .stageCompleted(_, _, _, _, let quality): quality != nil
        case .stageStarted, .closed, .followUpNamed, .answersErased, .active, .consentGiven: false
        }
    }

    /// The event without what was measured of the respondent (a stage completion's quality).
    var withoutQuality: SessionEvent {
        guard case .stageCompleted(let session, let stage, let key, let at, _?) = self else { return self }
        return .stageCompleted(session: session, stage: stage, idempotencyKey: key, at: at)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import Storage

/// What the daemon's housekeeping service asks of sessions: closing idle ones, settling completed
/// stages, compacting the journal.
extension SessionManager {
    /// Closes sessions idle longer than the timeout as `abandoned`. Returns how many.
    @discardableResult
    public func closeIdleSessions() async -> Int {
        var closed = 0
        let candidates = sessions.filter { id, session in
            if case .asking = session.state { return isIdle(session) && !locks.isHeld(id) }
            return false
        }.keys
        for id in candidates {
            do {
                let closedNow = try await withSession(id) { session throws(SessionError) -> Bool in
                    guard session.isOpen, isIdle(session) else { return false }
                    try await close(&session, .abandoned)
                    return true
                }
                if closedNow { closed += 1 }
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
        for (id, session) in sessions where !locks.isHeld(id) {
            guard case .awaitingDelivery(let key) = session.state else { continue }
            let queuedNow = try? await withSession(id) { current -> Bool in
                guard case .awaitingDelivery(key) = current.state else { return false }
                return await settleStage(&current, key: key)
            }
            if queuedNow == true { queued += 1 }
        }
        return queued
    }

    /// Queues the completed stage of `session` under `key` when the queue does not know it, or
    /// moves the session on when its delivery is settled. Returns whether it queued the stage;
    /// logs a failure, which the next round tries again.
    func settleStage(_ session: inout Session, key: UUID) async -> Bool {
        do {
            let state = try await queue.state(of: key)
            if state == nil {
                try await queue.enqueue(submission(of: session, key: key))
                logger.info("completed stage queued", metadata: ["session": "\(session.id)", "stage": "\(session.stage)"])
                return true
            } else if let state, state != .pending {
                try await proceed(&session, after: state)
            }
        } catch {
            logger.error("a completed stage cannot be queued yet; it is tried again later", metadata: ["session": "\(session.id)", "stage": "\(session.stage)", "error": "\(error)"])
        }
        return false
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

    /// Retires sessions closed more than `retention` ago, on the monotonic clock (those that ended `queued` only once
    /// their upload is no longer pending) and rewrites the session journal as one snapshot of the
    /// rest, removing the old segments. Answers wait while it runs. Does nothing when no session
    /// can be retired.
    ///
    /// The candidates are found first (asking the queue about uploads suspends), then their locks
    /// are taken (a request that holds one finishes first, as for an erasure), then the journal;
    /// only then is each candidate checked again and retired, so that no request holding a
    /// session sees it retired under it.
    @discardableResult
    public func compactJournal(retention: Duration) async throws -> JournalCompaction {
        var candidates: [UUID] = []
        for (id, session) in sessions where isRetirable(session, retention: retention) {
            if case .closed(.queued) = session.state, let key = session.lastCompletedKey, try await queue.state(of: key) == .pending { continue }
            candidates.append(id)
        }
        guard !candidates.isEmpty else { return JournalCompaction(retired: 0, kept: history.count) }
        candidates.sort { $0.uuidString < $1.uuidString }
        for id in candidates { await locks.acquire(id) }
        defer { for id in candidates { locks.release(id) } }
        await journalGate.enterExclusive()
        defer { journalGate.leaveExclusive() }
        // A request may have changed a candidate while the locks were awaited (a follow-up named
        // on it, its last activity later), or an erasure retired it.
        let retired = Set(candidates.filter { id in sessions[id].map { isRetirable($0, retention: retention) } ?? false })
        guard !retired.isEmpty else { return JournalCompaction(retired: 0, kept: history.count) }
        // Oldest first, so that a replay rebuilds sessions in the order they began.
        let kept = history.filter { !retired.contains($0.key) }.values.sorted { ($0.first?.time ?? .distantPast) < ($1.first?.time ?? .distantPast) }
        try await journal.compact(keeping: kept)
        for id in retired {
            sessions[id] = nil
            history[id] = nil
            activeAt[id] = nil
            closedAt[id] = nil
            awaitingErasure[id] = nil
            awaitingUpload.remove(id)
        }
        logger.info("session journal compacted", metadata: ["retired": "\(retired.count)", "kept": "\(kept.count)"])
        return JournalCompaction(retired: retired.count, kept: kept.count)
    }

    /// Whether `session` closed at least `retention` ago on the monotonic clock (its upload, if
    /// it ended `queued`, asked apart): a step of the wall clock retires nothing early or late.
    private func isRetirable(_ session: Session, retention: Duration) -> Bool {
        guard case .closed = session.state else { return false }
        let closed = closedAt[session.id] ?? anchor(session.lastActivity)
        return timeline.elapsed() - closed > retention
    }
}

extension SessionManager {
    /// The wall clock was stepped: the last activity of each session still asking is journaled
    /// again on the new wall clock (`SessionEvent.active`), so that after a restart its idle time
    /// counts from when it was really last active and not from a date the step made seem a day
    /// (or years) older. Its idle time on the monotonic clock does not change.
    public func wallClockStepped() async {
        let asking = sessions.filter { if case .asking = $0.value.state { true } else { false } }.keys
        for id in asking.sorted(by: { $0.uuidString < $1.uuidString }) {
            do {
                try await withSession(id) { session throws(SessionError) in
                    guard case .asking = session.state else { return }
                    let since = activeAt[id] ?? timeline.elapsed()
                    let idle = timeline.elapsed() - since
                    let seconds = Double(idle.components.seconds) + Double(idle.components.attoseconds) / 1e18
                    try await record([.active(session: id, at: now().addingTimeInterval(-seconds))], on: &session)
                    activeAt[id] = since
                }
            } catch {
                logger.warning("after a step of the wall clock, a session's last activity could not be journaled again: a restart before its next answer may count it idle from before the step", metadata: ["session": "\(id)", "error": "\(error)"])
            }
        }
    }
}

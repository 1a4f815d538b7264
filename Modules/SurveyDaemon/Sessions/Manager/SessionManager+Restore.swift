import Entities
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

extension SessionManager {
    /// Rebuilds sessions from the journal, then makes sure every completed stage is queued.
    ///
    /// A session with an event that cannot be replayed (a record before it was lost to damage,
    /// so the journal and the session disagree) goes on from the state before that event. That
    /// state is then written as a snapshot before anything is accepted, so that what the session
    /// is answered from here on builds on it, and survives later restarts, instead of on the
    /// events after the hole, which a replay would meet (and stop at) again. The damaged bytes
    /// stay in the journal's kept copies (`.corrupt`, `.torn-…`) until erasure removes them.
    public func restore() async throws {
        let events = try await journal.replay()
        for event in events { history[event.session, default: []].append(event) }
        /// The events each session was rebuilt from.
        var applied: [UUID: [SessionEvent]] = [:]
        var lost: Set<UUID> = []
        for event in events where !lost.contains(event.session) {
            do {
                if case .stageStarted(let id, let stage, let language, let hash, let time) = event {
                    let earlier = Set(sessions[id].map { Array($0.allAnswers.keys) } ?? [])
                    guard let definition = try await cachedDefinition(hash: hash, stage: stage, earlierAnswers: earlier) else {
                        restoreProblems.append("session \(id): the questionnaire of stage \(stage) (\(hash)) is not cached; the session cannot be continued")
                        lost.insert(id)
                        sessions[id] = nil
                        continue
                    }
                    if var session = sessions[id] {
                        try session.startStage(event, questionnaire: definition.questionnaire)
                        sessions[id] = session
                    } else {
                        sessions[id] = Session(id: id, stage: stage, language: language, definitionHash: hash, questionnaire: definition.questionnaire, startedAt: time)
                    }
                    applied[id, default: []].append(event)
                } else if var session = sessions[event.session] {
                    try session.apply(event)
                    sessions[event.session] = session
                    applied[event.session, default: []].append(event)
                }
            } catch {
                restoreProblems.append("\(error)")
                lost.insert(event.session)
            }
        }
        // Sessions kept as they were before an event that could not be replayed.
        let settled = lost.filter { sessions[$0] != nil }
        if !settled.isEmpty { await settle(settled, applied: applied) }
        await settleCompletedStages()
        noteRestoredErasures()
        // Uploads settled before the stop: their sessions' answers wait from this start at the
        // latest, not from the first erasure round.
        await noteSettledUploads()
        // The idle timeout of a session left open counts from its last activity, re-anchored on
        // the monotonic clock: at most the timeout after this start.
        // A closed session's retention counts from when it closed, re-anchored the same way.
        for (id, session) in sessions {
            if session.isOpen, activeAt[id] == nil { activeAt[id] = anchor(session.lastActivity) }
            if case .closed = session.state, closedAt[id] == nil { closedAt[id] = anchor(session.lastActivity) }
        }
        logger.info("sessions restored", metadata: ["open": "\(sessions.values.filter(\.isOpen).count)", "events": "\(events.count)", "problems": "\(restoreProblems.count)"])
    }

    /// Writes the journal again as one snapshot in which the `settled` sessions hold only the
    /// events they were rebuilt from (every other session keeps its events as journaled). When
    /// that cannot be written, those sessions are not continued: answers given to them now would
    /// be lost at the next restart. The next start tries again.
    func settle(_ settled: Set<UUID>, applied: [UUID: [SessionEvent]]) async {
        var rewritten = history
        for id in settled { rewritten[id] = applied[id] ?? [] }
        // Oldest first, as a compaction writes them.
        let kept = rewritten.values.sorted { ($0.first?.time ?? .distantPast) < ($1.first?.time ?? .distantPast) }
        do {
            try await journal.compact(keeping: kept)
            for id in settled.sorted(by: { $0.uuidString < $1.uuidString }) {
                let left = (history[id]?.count ?? 0) - (rewritten[id]?.count ?? 0)
                let place = sessions[id].map { "stage \($0.stage), question \($0.progress.current)" } ?? "where it was"
                restoreProblems.append("session \(id): goes on from \(place); the \(left) event\(left == 1 ? "" : "s") journaled after the one that could not be replayed \(left == 1 ? "was" : "were") left out, and the recovered state was written to the journal, so later answers build on it (the damaged bytes are kept beside the segments until they are erased, erasureDelaySeconds after this start)")
            }
            history = rewritten
            logger.warning("sessions settled after a journal problem", metadata: ["sessions": "\(settled.count)"])
        } catch {
            for id in settled {
                sessions[id] = nil
                restoreProblems.append("session \(id): cannot be continued now: its recovered state could not be written to the journal (\(error)); surveyd tries again at its next start")
            }
            logger.error("cannot write the recovered state of sessions; they are not continued", metadata: ["sessions": "\(settled.count)", "error": "\(error)"])
        }
    }
}

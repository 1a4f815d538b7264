import Entities
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Validation

/// Paradata and quality flags: what the daemon measures of each stage as it is answered, and
/// the flags judged from it when the stage completes (`doc/data-quality.md`). Nothing here holds
/// back, changes or drops an answer; with ``SessionManager/Settings/quality`` nil, nothing is
/// measured and nothing is judged.
extension SessionManager {
    /// A stage of session `id` began now: its questions are timed from here.
    func stageBegan(_ id: UUID) {
        guard settings.quality != nil else { return }
        paradata[id] = ParadataTracker(startedAt: timeline.elapsed())
    }

    /// Back was tapped on session `id`.
    func wentBack(_ id: UUID) {
        guard settings.quality != nil else { return }
        paradata[id, default: ParadataTracker(startedAt: nil)].wentBack(at: timeline.elapsed())
    }

    /// The accepted `events` of one answer on `session` with their measurement: the tracker as
    /// it stands after them and, when they complete the stage, the completion carrying the
    /// stage's paradata and flags. Kept by ``keep(_:for:)`` once the events are journaled.
    func measure(_ events: [SessionEvent], on session: Session, input: PageInput?) -> (events: [SessionEvent], measured: Measured?) {
        guard let rules = settings.quality else { return (events, nil) }
        var tracker = paradata[session.id] ?? ParadataTracker(startedAt: nil)
        let at = timeline.elapsed()
        // The position each answer event answers at, and the answers it changes: followed here
        // rather than on a copy of the session, which would copy its answers on every answer.
        var position = session.position
        var given: [(form: String, value: AnswerValue?)] = []
        var measured = events
        for (index, event) in events.enumerated() {
            switch event {
            case .answerAccepted(_, let form, let value):
                let before = session.stageAnswers[form]
                tracker.answered(position: position, skipped: false, changed: before != nil && before != value, input: input, at: at)
                given.append((form, value))
                position += 1
            case .answerSkipped(_, let form):
                tracker.answered(position: position, skipped: true, changed: session.stageAnswers[form] != nil, input: input, at: at)
                given.append((form, nil))
                position += 1
            case .stageCompleted(let id, let stage, let key, let time, nil):
                var answers = session.stageAnswers
                for (form, value) in given { answers[form] = value }
                let judged = QualityJudge.Stage(
                    questionnaire: session.questionnaire, answers: answers, paradata: tracker.paradata,
                    startedAt: tracker.startedAt, completedAt: at)
                let flags = QualityJudge(rules: rules).flags(judged, history: completions)
                measured[index] = .stageCompleted(session: id, stage: stage, idempotencyKey: key, at: time, quality: StageQuality(paradata: tracker.paradata, flags: flags))
                return (measured, Measured(tracker: tracker, completed: (stage, at, answers)))
            default:
                break
            }
        }
        return (measured, Measured(tracker: tracker, completed: nil))
    }

    /// What ``measure(_:on:input:)`` found, kept once its events are journaled.
    struct Measured: Sendable {
        var tracker: ParadataTracker
        var completed: (stage: String, at: Duration, answers: [String: AnswerValue])?
    }

    /// Keeps what was measured of `session` after its events were journaled: the tracker while
    /// the stage goes on, the completion in the kiosk's recent history.
    func keep(_ measured: Measured?, for session: Session) {
        guard let measured else { return }
        if let completed = measured.completed {
            completions.record(stage: completed.stage, at: completed.at, answers: completed.answers)
            paradata[session.id] = nil
        } else if case .asking = session.state {
            paradata[session.id] = measured.tracker
        } else {
            paradata[session.id] = nil
        }
    }

    /// Forgets what was measured of a session that closed.
    func forgetParadata(_ id: UUID) {
        paradata[id] = nil
    }
}

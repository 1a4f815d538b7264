public import Entities
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Validation

/// One respondent's walk through a survey: the current stage's questionnaire, the answers so
/// far and the position in the forms.
///
/// `Session` is a value: every operation returns the events that describe the change, and
/// ``apply(_:)`` is the only place that changes state, so replaying journaled events rebuilds
/// exactly the session that was acknowledged.
public struct Session: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        /// Asking the form at ``Session/position``.
        case asking
        /// The stage is complete and queued; waiting to learn whether a follow-up stage comes.
        case awaitingDelivery(idempotencyKey: UUID)
        /// Ended.
        case closed(SessionOutcome)
    }

    public let id: UUID
    public private(set) var stage: String
    public private(set) var language: String
    public private(set) var definitionHash: String
    public private(set) var questionnaire: Questionnaire
    /// Answers of the current stage, uploaded when it completes.
    public private(set) var stageAnswers: [String: AnswerValue] = [:]
    /// Every answer of the respondent in every stage, for `sameAS "$name"` and screening.
    public private(set) var allAnswers: [String: AnswerValue] = [:]
    /// Index of the form being asked.
    public private(set) var position = 0
    public private(set) var state: State = .asking
    /// Stages completed so far, in order.
    public private(set) var completedStages: [String] = []
    /// The idempotency key of the last completed stage.
    public private(set) var lastCompletedKey: UUID?
    /// What was measured of the last completed stage and the flags judged from it, sent with its
    /// upload; nil when data quality is off or it was erased.
    public private(set) var lastQuality: StageQuality?
    /// The follow-up stage the server named after a `queued` session's upload was delivered.
    public private(set) var followUp: String?
    /// The version of the consent notice the respondent agreed to; nil when none was asked.
    public private(set) var consent: String?
    /// When the last change happened: the idle timeout counts from here.
    public private(set) var lastActivity: Date

    /// A new session at the first form of `questionnaire`.
    public init(id: UUID, stage: String, language: String, definitionHash: String, questionnaire: Questionnaire, startedAt: Date) {
        self.id = id
        self.stage = stage
        self.language = language
        self.definitionHash = definitionHash
        self.questionnaire = questionnaire
        self.lastActivity = startedAt
    }

    /// The form being asked, when the session is asking.
    public var currentForm: Form? {
        guard case .asking = state, questionnaire.forms.indices.contains(position) else { return nil }
        return questionnaire.forms[position]
    }

    /// Progress in the current stage: question `current` of `total` (1-based).
    public var progress: (current: Int, total: Int) {
        (min(position + 1, questionnaire.forms.count), questionnaire.forms.count)
    }

    public var isOpen: Bool {
        if case .closed = state { return false }
        return true
    }

    /// Whether ``back(at:)`` would go to an earlier question: the session is asking, and not the
    /// first question of its stage (an earlier stage is submitted and cannot be changed).
    public var canGoBack: Bool {
        guard case .asking = state else { return false }
        return position > 0 && position <= questionnaire.forms.count
    }

    // MARK: Decisions (no state change; they return the events to journal and apply)

    /// What skipping the current form leads to: rejected when it is required.
    public func skip(at time: Date, newKey: @autoclosure () -> UUID = UUID()) -> AnswerDecision {
        guard let form = currentForm else { return .notAsking(stateDescription) }
        if let failure = AnswerValidator.check(nil, for: form) {
            return .rejected(form: form.name, message: failure.message, reason: .missing)
        }
        var events: [SessionEvent] = [.answerSkipped(session: id, form: form.name)]
        if position + 1 >= questionnaire.forms.count {
            events.append(.stageCompleted(session: id, stage: stage, idempotencyKey: newKey(), at: time))
        }
        return .accepted(events)
    }

    /// What going back to the previous question of the stage leads to: nil when the session
    /// cannot go back (``canGoBack``). The answer given there stays until it is answered again
    /// or skipped.
    public func back(at time: Date) -> SessionEvent? {
        guard canGoBack else { return nil }
        return .wentBack(session: id, form: questionnaire.forms[position - 1].name, at: time)
    }

    /// The upload body of the current stage: answered forms only (skipped optional ones are left out).
    public var upload: AnswersUpload { AnswersUpload(answers: stageAnswers) }

    /// Why the session is not asking, for ``AnswerDecision/notAsking(_:)``.
    var stateDescription: String {
        switch state {
        case .asking: "the session has no question left to ask"
        case .awaitingDelivery: "the session is waiting for its stage \"\(stage)\" to be delivered"
        case .closed(let outcome): "the session is closed (\(outcome.rawValue))"
        }
    }

    // MARK: Applying events

    /// Applies one event. Events of other sessions and events that do not fit the current
    /// state are refused with a description, so a damaged journal cannot corrupt a session.
    public mutating func apply(_ event: SessionEvent) throws(SessionReplayError) {
        guard event.session == id else { throw SessionReplayError(session: id, "event of session \(event.session)") }
        switch event {
        case .answerAccepted(_, let name, let value):
            guard let form = currentForm, form.name == name else {
                throw SessionReplayError(session: id, "answer for \"\(name)\" when \(currentForm.map { "\"\($0.name)\"" } ?? "no form") is asked")
            }
            stageAnswers[name] = value
            allAnswers[name] = value
            position += 1
        case .answerSkipped(_, let name):
            guard let form = currentForm, form.name == name else {
                throw SessionReplayError(session: id, "skip of \"\(name)\" when \(currentForm.map { "\"\($0.name)\"" } ?? "no form") is asked")
            }
            // Skipped after going back: the answer given before is withdrawn.
            if stageAnswers.removeValue(forKey: name) != nil { allAnswers[name] = nil }
            position += 1
        case .wentBack(_, let name, let time):
            guard canGoBack, questionnaire.forms[position - 1].name == name else {
                throw SessionReplayError(session: id, "back to \"\(name)\" when \(currentForm.map { "\"\($0.name)\"" } ?? "no form") is asked")
            }
            position -= 1
            lastActivity = max(lastActivity, time)
        case .stageCompleted(_, let completed, let key, let time, let quality):
            guard case .asking = state, completed == stage, position >= questionnaire.forms.count else {
                throw SessionReplayError(session: id, "stage \"\(completed)\" completed before all its forms were answered")
            }
            state = .awaitingDelivery(idempotencyKey: key)
            lastCompletedKey = key
            lastQuality = quality
            completedStages.append(completed)
            lastActivity = time
            return
        case .stageStarted(_, let next, let language, let hash, let time):
            throw SessionReplayError(session: id, "stage \"\(next)\" (\(language), \(hash)) started at \(time) needs its questionnaire: use startStage")
        case .closed(_, let outcome, let time):
            state = .closed(outcome)
            lastActivity = time
            return
        case .followUpNamed(_, let next, _):
            followUp = next
        case .active(_, let time):
            lastActivity = time
        case .consentGiven(_, let version):
            consent = version
        case .answersErased(_, let erasedPosition):
            guard case .asking = state, (0...questionnaire.forms.count).contains(erasedPosition) else {
                throw SessionReplayError(session: id, "answers erased at form \(erasedPosition) of stage \"\(stage)\" when it is not asking")
            }
            position = erasedPosition
            stageAnswers = [:]
            allAnswers = [:]
        }
    }

    /// Forgets every answer of the respondent (a closed session whose answers were erased from
    /// the journal): what the session shows stays, what the respondent typed goes.
    public mutating func eraseAnswers() {
        lastQuality = nil
        stageAnswers = [:]
        allAnswers = [:]
    }

    /// Moves on to the follow-up stage the server named after the previous one was delivered.
    public mutating func startStage(_ event: SessionEvent, questionnaire next: Questionnaire) throws(SessionReplayError) {
        guard case .stageStarted(let eventID, let nextStage, let language, let hash, let time) = event, eventID == id else {
            throw SessionReplayError(session: id, "startStage needs a stageStarted event of this session")
        }
        guard case .awaitingDelivery = state else {
            throw SessionReplayError(session: id, "stage \"\(nextStage)\" started while stage \"\(stage)\" was not complete")
        }
        stage = nextStage
        self.language = language
        definitionHash = hash
        questionnaire = next
        stageAnswers = [:]
        position = 0
        state = .asking
        lastActivity = time
    }

    /// Records activity without another change (e.g. a rejected answer keeps the session alive).
    public mutating func touch(_ time: Date) {
        lastActivity = max(lastActivity, time)
    }
}

/// What an answer or a skip leads to.
public enum AnswerDecision: Sendable, Hashable {
    /// Accepted: journal these events, then apply them.
    case accepted([SessionEvent])
    /// Not accepted: show the message and ask the same form again.
    case rejected(form: String, message: String, reason: RejectionReason)
    /// The session is not asking anything.
    case notAsking(String)
}

/// Why an answer was not accepted, for a front end that words it its own way.
public enum RejectionReason: Sendable, Hashable {
    /// The input does not fit the form (not a number, not one of the options).
    case unreadable
    /// The form needs an answer and none was given.
    case missing
    /// A rule of the form failed; the message is its `validateText`.
    case rule
}

/// An event that does not fit the session it names: the journal and the session disagree.
public struct SessionReplayError: Error, Sendable, CustomStringConvertible {
    public static let code = "session_replay_mismatch"
    public var session: UUID
    public var detail: String

    init(session: UUID, _ detail: String) {
        self.session = session
        self.detail = detail
    }

    public var description: String {
        "session \(session): \(detail); the session is kept as it was before this event. Report the journal problem with `surveyctl status`."
    }
}

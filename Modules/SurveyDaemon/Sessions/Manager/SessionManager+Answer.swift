#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Entities
import Logging

/// What an answer came to, with the session as it stands after it.
public struct AnswerResult: Sendable, Hashable {
    /// Whether the answer was accepted (or, ``repeated``, had been).
    public var accepted: Bool
    /// Why it was not accepted: the message to show before asking again.
    public var message: String?
    /// What kind of problem ``message`` describes, when the answer was not accepted.
    public var rejection: RejectionReason?
    /// The exact answer the session accepted last, sent again: nothing was recorded.
    public var repeated: Bool
    public var session: Session

    public init(accepted: Bool, message: String? = nil, rejection: RejectionReason? = nil, repeated: Bool = false, session: Session) {
        self.accepted = accepted
        self.message = message
        self.rejection = rejection
        self.repeated = repeated
        self.session = session
    }
}

/// An answer a session accepted, as the client sent it, with the question it answered.
struct AcceptedAnswer: Sendable, Hashable {
    var question: String
    /// The question's position in its stage, from 1.
    var position: Int
    var input: SessionAnswer.Input
}

extension SessionManager {
    /// Answers (or skips) the current question of a session.
    ///
    /// When the answer names the question it answers (`question`, `position`) and the session
    /// has moved on, nothing is recorded: the exact answer the session accepted last, sent again,
    /// gets the session as it stands now (``AnswerResult/repeated``); anything else is
    /// ``SessionError/Code/questionChanged`` carrying the session. An answer that names no
    /// question answers whatever is asked. What the input means (a blank one included) is
    /// decided by the session, inside this session's lock, against the form it asks then.
    public func take(_ answer: SessionAnswer) async throws(SessionError) -> AnswerResult {
        if let position = answer.position, position < 1 {
            throw SessionError(.badPosition, "position must be the question's number in its stage, from 1 (the session's `current`), not \(position)")
        }
        let id = try resolve(answer.session)
        return try await withSession(id) { session throws(SessionError) in
            try await self.answer(answer, on: &session)
        }
    }

    /// Decides the answer on `session`, records what it changes and, when it completes the
    /// stage, queues the stage and waits briefly for its delivery.
    func answer(_ answer: SessionAnswer, on session: inout Session) async throws(SessionError) -> AnswerResult {
        if case .asking = session.state, isIdle(session) {
            try await close(&session, .abandoned)
            throw SessionError(.sessionClosed, "session \(session.id.text(uppercase: false)) was idle too long and is closed as abandoned; start a new one with `surveyctl start`")
        }
        if answer.question != nil || answer.position != nil, !asks(session, answer) {
            if let last = lastAnswers[session.id], Self.repeats(answer, last) {
                return AnswerResult(accepted: true, repeated: true, session: session)
            }
            throw questionChanged(session, answer)
        }
        let time = now()
        let asked = session.currentForm.map { AcceptedAnswer(question: $0.name, position: session.position + 1, input: answer.input) }
        let decision: AnswerDecision
        switch answer.input {
        case .words(let words): decision = session.answer(words, at: time)
        case .entry(let entry): decision = session.answer(entry, at: time)
        case .skip: decision = session.skip(at: time)
        }
        switch decision {
        case .notAsking(let why):
            throw SessionError(.notAsking, "\(why); start a new session with `surveyctl start`")
        case .rejected(_, let message, let reason):
            session.touch(time)
            noteActivity(session.id)
            metrics.answerRejected()
            return AnswerResult(accepted: false, message: message, rejection: reason, session: session)
        case .accepted(let accepted):
            let (events, measured) = measure(accepted, on: session, input: answer.pageInput)
            try await record(events, on: &session)
            keep(measured, for: session)
            if let asked { remember(asked, for: session.id) }
            if case .awaitingDelivery(let key) = session.state {
                try await completeStage(&session, key: key)
            } else if case .closed(let outcome) = session.state {
                logger.info("session closed", metadata: ["session": "\(session.id)", "outcome": "\(outcome.rawValue)"])
            }
            return AnswerResult(accepted: true, session: session)
        }
    }

    /// Whether the session asks the question the answer names (each part it names).
    func asks(_ session: Session, _ answer: SessionAnswer) -> Bool {
        guard let form = session.currentForm else { return false }
        return (answer.question.map { $0 == form.name } ?? true) && (answer.position.map { $0 == session.position + 1 } ?? true)
    }

    /// Whether `answer` is the accepted answer `last` sent again: the same question (each part
    /// it names) and the same input (words, entry or skip).
    static func repeats(_ answer: SessionAnswer, _ last: AcceptedAnswer) -> Bool {
        (answer.question.map { $0 == last.question } ?? true) && (answer.position.map { $0 == last.position } ?? true)
            && answer.input == last.input
    }

    func questionChanged(_ session: Session, _ answer: SessionAnswer) -> SessionError {
        var named: [String] = []
        if let question = answer.question { named.append("\"\(question)\"") }
        if let position = answer.position { named.append("at position \(position)") }
        let now: String
        if let form = session.currentForm {
            now = "it now asks \"\(form.name)\" (question \(session.position + 1) of \(session.questionnaire.forms.count) of stage \(session.stage)); show that question and answer it"
        } else if case .closed(let outcome) = session.state {
            now = "it is closed (\(outcome.rawValue))"
        } else {
            now = "its stage \(session.stage) is complete and being delivered"
        }
        return SessionError(
            .questionChanged,
            "session \(session.id.text(uppercase: false)) no longer asks the question \(named.joined(separator: " ")), and this is not the answer it accepted last, so nothing was recorded: \(now)",
            session: session)
    }

    /// Keeps `answer` as the session's last accepted one. Entries of sessions no longer in
    /// memory (retired by a compaction) are dropped now and then.
    func remember(_ answer: AcceptedAnswer, for id: UUID) {
        lastAnswers[id] = answer
        if lastAnswers.count > sessions.count + 64 {
            lastAnswers = lastAnswers.filter { sessions[$0.key] != nil }
        }
    }
}

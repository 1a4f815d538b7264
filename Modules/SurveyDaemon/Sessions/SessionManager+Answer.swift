import ControlAPI
import Foundation

/// An answer a session accepted, as the client sent it, with the question it answered.
struct AcceptedAnswer: Sendable, Hashable {
    var question: String
    /// The question's position in its stage, from 1 (``SessionView/current``).
    var position: Int
    var values: [String]
    var skip: Bool
}

extension SessionManager {
    /// Answers (or skips) the current question of a session.
    ///
    /// When the request names the question it answers (`question`, `position`) and the session
    /// has moved on, nothing is recorded: the exact answer the session accepted last, sent again,
    /// gets the session as it stands now (`repeated`); anything else is `409 question_changed`
    /// carrying the session. A request that names no question answers whatever is asked.
    public func answer(_ request: AnswerRequest) async throws(ControlError) -> AnswerReply {
        if let position = request.position, position < 1 {
            throw ControlError.badRequest("bad_position", "position must be the question's number in its stage, from 1 (the session's `current`), not \(position)")
        }
        let id = try resolve(request.session)
        await lock(id)
        defer { unlock(id) }
        guard var session = sessions[id] else { throw noSuchSession(id.text(uppercase: false)) }
        if case .asking = session.state, isIdle(session) {
            try await close(&session, .abandoned)
            throw ControlError.conflict("session_closed", "session \(id.text(uppercase: false)) was idle too long and is closed as abandoned; start a new one with `surveyctl start`")
        }
        if request.question != nil || request.position != nil, !asks(session, request) {
            if let last = lastAnswers[id], Self.repeats(request, last) {
                return AnswerReply(accepted: true, message: nil, repeated: true, session: session.view())
            }
            throw questionChanged(session, request)
        }
        let time = now()
        let asked = session.currentForm.map { AcceptedAnswer(question: $0.name, position: session.position + 1, values: request.values, skip: request.skip) }
        let decision = request.skip ? session.skip(at: time) : session.answer(request.values, at: time)
        switch decision {
        case .notAsking(let why):
            throw ControlError.conflict("not_asking", "\(why); start a new session with `surveyctl start`")
        case .rejected(_, let message):
            session.touch(time)
            sessions[id] = session
            return AnswerReply(accepted: false, message: message, session: session.view())
        case .accepted(let events):
            try await persist(events)
            for event in events { try apply(event, to: &session) }
            sessions[id] = session
            if let asked { remember(asked, for: id) }
            if case .awaitingDelivery(let key) = session.state {
                try await completeStage(&session, key: key)
            } else if case .closed(let outcome) = session.state {
                logger.info("session closed", metadata: ["session": "\(id)", "outcome": "\(outcome.rawValue)"])
            }
            return AnswerReply(accepted: true, message: nil, session: (sessions[id] ?? session).view())
        }
    }

    /// Whether the session asks the question the request names (each part it names).
    func asks(_ session: Session, _ request: AnswerRequest) -> Bool {
        guard let form = session.currentForm else { return false }
        return (request.question.map { $0 == form.name } ?? true) && (request.position.map { $0 == session.position + 1 } ?? true)
    }

    /// Whether the request is the accepted answer `last` sent again: the same question (each
    /// part it names) and the same words or skip.
    static func repeats(_ request: AnswerRequest, _ last: AcceptedAnswer) -> Bool {
        (request.question.map { $0 == last.question } ?? true) && (request.position.map { $0 == last.position } ?? true)
            && request.values == last.values && request.skip == last.skip
    }

    func questionChanged(_ session: Session, _ request: AnswerRequest) -> ControlError {
        var named: [String] = []
        if let question = request.question { named.append("\"\(question)\"") }
        if let position = request.position { named.append("at position \(position)") }
        let now: String
        if let form = session.currentForm {
            now = "it now asks \"\(form.name)\" (question \(session.position + 1) of \(session.questionnaire.forms.count) of stage \(session.stage)); show that question and answer it"
        } else if case .closed(let outcome) = session.state {
            now = "it is closed (\(outcome.rawValue))"
        } else {
            now = "its stage \(session.stage) is complete and being delivered"
        }
        return ControlError(
            status: 409, code: "question_changed",
            "session \(session.id.text(uppercase: false)) no longer asks the question \(named.joined(separator: " ")), and this is not the answer it accepted last, so nothing was recorded: \(now)",
            session: session.view())
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

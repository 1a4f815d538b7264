public import Entities
import Foundation
public import Kiosk
import MockServer
import Validation

/// The project's survey behind the kiosk, in memory: sessions walk the stages of
/// ``SurveyDefinitions``, an entry is read with the session logic's `Form.blankAnswer` and
/// `FormEntry.answer(for:)` and checked by `AnswerValidator`, screening ends a session as
/// `no_target`, and a completed stage moves on by `mock/routing.json` (or ends as `queued`
/// while ``isOnline`` is false). Every change is recorded in ``events``, as a journal would.
public actor SurveyKioskBackend: KioskBackend {
    /// What happened, in order.
    public enum Event: Sendable, Hashable {
        case started(session: String, stage: String, language: KioskLanguage)
        case answered(session: String, form: String, value: AnswerValue)
        case skipped(session: String, form: String)
        case wentBack(session: String, to: String)
        case stageCompleted(session: String, stage: String, answers: [String: AnswerValue])
        case closed(session: String, outcome: KioskOutcome)
    }

    private struct Session {
        var id: String
        var language: KioskLanguage
        var stage: String
        var questionnaire: Questionnaire
        var position = 0
        var stageAnswers: [String: AnswerValue] = [:]
        var allAnswers: [String: AnswerValue] = [:]
        var state: State = .asking

        enum State: Equatable {
            case asking
            case waiting(next: String?)
            case closed(KioskOutcome)
        }
    }

    public let definitions: SurveyDefinitions
    public private(set) var events: [Event] = []
    /// While false, a completed stage ends the session as `queued` (its upload waits).
    public var isOnline = true
    /// While true, a completed stage waits (the session shows "one moment") until ``deliverWaitingStages()``.
    public var holdsDeliveries = false
    private var sessions: [String: Session] = [:]
    private var failures: [KioskError] = []
    private var counter = 0

    public init(definitions: SurveyDefinitions) {
        self.definitions = definitions
    }

    public init() throws {
        self.init(definitions: try SurveyDefinitions.load())
    }

    // MARK: Test controls

    public func setOnline(_ online: Bool) { isOnline = online }
    public func setHoldsDeliveries(_ hold: Bool) { holdsDeliveries = hold }
    /// The next backend call throws `error`.
    public func failNextCall(with error: KioskError) { failures.append(error) }
    /// Forgets a session, as a daemon that lost it would.
    public func forget(_ session: KioskSessionID) { sessions[session.rawValue] = nil }
    public var sessionCount: Int { sessions.count }
    /// The outcome of a closed session, or nil while it is open (or unknown).
    public func outcome(of session: KioskSessionID) -> KioskOutcome? {
        if case .closed(let outcome) = sessions[session.rawValue]?.state { return outcome }
        return nil
    }
    /// Every answer of a session so far.
    public func answers(of session: KioskSessionID) -> [String: AnswerValue] { sessions[session.rawValue]?.allAnswers ?? [:] }

    /// Moves every waiting session on, as a delivery that succeeded would.
    public func deliverWaitingStages() throws(KioskError) {
        for (id, session) in sessions {
            guard case .waiting(let next) = session.state else { continue }
            var current = session
            try moveOn(&current, to: next)
            sessions[id] = current
        }
    }

    // MARK: KioskBackend

    /// The consent versions agreed to, by session, and how many respondents declined.
    public private(set) var consents: [String: String] = [:]
    public private(set) var declines: [KioskLanguage] = []

    public func consentDeclined(language: KioskLanguage) {
        declines.append(language)
    }

    public func start(language: KioskLanguage, consent: String?) throws(KioskError) -> RespondentView {
        try injectedFailure()
        guard let questionnaire = definitions.questionnaire(definitions.firstStage, language) else {
            throw KioskError(.unavailable, "no questionnaire for stage \(definitions.firstStage) in \(language.rawValue)")
        }
        counter += 1
        let id = "session-\(counter)-\(UUID().uuidString.prefix(8))"
        let session = Session(id: id, language: language, stage: definitions.firstStage, questionnaire: questionnaire)
        sessions[id] = session
        events.append(.started(session: id, stage: session.stage, language: language))
        consents[id] = consent
        return view(of: session)
    }

    public func answer(session id: KioskSessionID, question: String, position: Int, input: KioskInput) throws(KioskError) -> KioskAnswerResult {
        try injectedFailure()
        var session = try open(id)
        guard case .asking = session.state, session.questionnaire.forms.indices.contains(session.position) else {
            return .questionChanged(view(of: session))
        }
        let form = session.questionnaire.forms[session.position]
        guard form.name == question, position == session.position + 1 else {
            return .questionChanged(view(of: session))
        }
        var entry: FormEntry?
        switch input {
        case .skip: entry = nil
        case .entry(let posted): entry = posted
        }
        // The session logic's rule for a form posted with nothing in it.
        if let posted = entry, let blank = form.blankAnswer(nothingChosen: posted.nothingChosen, emptyEntry: posted.isBlank) {
            if case .missing = blank { return .rejected(.missing, view(of: session)) }
            entry = nil
        }
        switch entry {
        case nil:
            if form.isRequired { return .rejected(.missing, view(of: session)) }
            session.stageAnswers[form.name] = nil
            session.allAnswers[form.name] = nil
            events.append(.skipped(session: session.id, form: form.name))
        case let entry?:
            let value: AnswerValue
            do {
                value = try entry.answer(for: form)
            } catch {
                return .rejected(.unreadable(detail: error.message), view(of: session))
            }
            var earlier = session.allAnswers
            earlier[form.name] = nil
            if let failure = AnswerValidator.check(value, for: form, earlierAnswers: earlier) {
                return .rejected(failure.ruleIndex == nil ? .missing : .rule(message: failure.message), view(of: session))
            }
            session.stageAnswers[form.name] = value
            session.allAnswers[form.name] = value
            events.append(.answered(session: session.id, form: form.name, value: value))
            if session.questionnaire.screeningResult(for: session.allAnswers) != nil {
                close(&session, .noTarget)
                sessions[session.id] = session
                return .accepted(view(of: session))
            }
        }
        session.position += 1
        if session.position >= session.questionnaire.forms.count {
            try completeStage(&session)
        }
        sessions[session.id] = session
        return .accepted(view(of: session))
    }

    public func back(session id: KioskSessionID) throws(KioskError) -> RespondentView {
        try injectedFailure()
        var session = try open(id)
        if case .asking = session.state, session.position > 0 {
            session.position -= 1
            events.append(.wentBack(session: session.id, to: session.questionnaire.forms[session.position].name))
            sessions[session.id] = session
        }
        return view(of: session)
    }

    public func abandon(session id: KioskSessionID) throws(KioskError) {
        try injectedFailure()
        guard var session = sessions[id.rawValue] else { return }
        if case .closed = session.state { return }
        close(&session, .abandoned)
        sessions[session.id] = session
    }

    public func view(session id: KioskSessionID) throws(KioskError) -> RespondentView {
        try injectedFailure()
        guard let session = sessions[id.rawValue] else { throw Self.noSuchSession(id) }
        return view(of: session)
    }

    // MARK: Session logic

    private func open(_ id: KioskSessionID) throws(KioskError) -> Session {
        guard let session = sessions[id.rawValue] else { throw Self.noSuchSession(id) }
        if case .closed(let outcome) = session.state {
            throw KioskError(.sessionClosed, "session \(id) is closed (\(outcome.rawValue))")
        }
        return session
    }

    private func completeStage(_ session: inout Session) throws(KioskError) {
        events.append(.stageCompleted(session: session.id, stage: session.stage, answers: session.stageAnswers))
        guard isOnline else {
            close(&session, .queued)
            return
        }
        let next = definitions.routing.next(after: session.stage, answers: session.stageAnswers)
        if holdsDeliveries {
            session.state = .waiting(next: next)
            return
        }
        try moveOn(&session, to: next)
    }

    private func moveOn(_ session: inout Session, to next: String?) throws(KioskError) {
        guard let next else {
            close(&session, .thanks)
            return
        }
        guard let questionnaire = definitions.questionnaire(next, session.language) else {
            throw KioskError(.unavailable, "no questionnaire for stage \(next) in \(session.language.rawValue)")
        }
        session.stage = next
        session.questionnaire = questionnaire
        session.position = 0
        session.stageAnswers = [:]
        session.state = .asking
        events.append(.started(session: session.id, stage: next, language: session.language))
    }

    private func close(_ session: inout Session, _ outcome: KioskOutcome) {
        session.state = .closed(outcome)
        events.append(.closed(session: session.id, outcome: outcome))
    }

    private func view(of session: Session) -> RespondentView {
        let forms = session.questionnaire.forms
        let state: RespondentView.State
        switch session.state {
        case .asking where forms.indices.contains(session.position):
            let form = forms[session.position]
            state = .asking(KioskQuestion(form: form, currentValue: session.stageAnswers[form.name]))
        case .asking, .waiting:
            state = .waiting
        case .closed(let outcome):
            state = .closed(outcome)
        }
        let asking = if case .asking = state { true } else { false }
        return RespondentView(
            session: KioskSessionID(session.id),
            stage: session.stage,
            language: session.language,
            state: state,
            position: min(session.position + 1, forms.count),
            total: forms.count,
            canGoBack: asking && session.position > 0
        )
    }

    private func injectedFailure() throws(KioskError) {
        if !failures.isEmpty { throw failures.removeFirst() }
    }

    private static func noSuchSession(_ id: KioskSessionID) -> KioskError {
        KioskError(.noSuchSession, "no session \(id)")
    }
}

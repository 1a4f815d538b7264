public import Entities
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import Kiosk

/// The kiosk pages' backend in the daemon: the same session manager calls as the control API
/// makes, with the session manager's errors mapped to the kiosk's at this edge
/// (`KioskError+SessionError.swift`) and sessions shown as the respondent's views
/// (`Session+RespondentView.swift`).
public struct SessionKioskBackend: KioskBackend {
    let sessions: SessionManager
    /// Out of service, opening hours and the survey chosen by staff; nil: always open, `firstStage`.
    let staff: KioskStaffDesk?

    public init(sessions: SessionManager, staff: KioskStaffDesk? = nil) {
        self.sessions = sessions
        self.staff = staff
    }

    public func start(language: KioskLanguage, consent: String?) async throws(KioskError) -> RespondentView {
        var stage: String?
        switch staff?.availability ?? .open(survey: nil) {
        case .open(let survey): stage = survey?.stage
        case .outOfService: throw KioskError(.unavailable, "the kiosk is out of service; staff or `surveyctl kiosk in-service` puts it back")
        case .closed: throw KioskError(.unavailable, "the kiosk is closed (kioskOpenHours)")
        }
        do {
            return try await sessions.start(stage: stage, language: language.rawValue, consent: consent).respondentView
        } catch {
            throw KioskError(error)
        }
    }

    public func consentDeclined(language: KioskLanguage) async {
        sessions.metrics.consentDeclined()
    }

    public func answer(session: KioskSessionID, question: String, position: Int, input: KioskInput) async throws(KioskError) -> KioskAnswerResult {
        try await answer(session: session, question: question, position: position, input: input, pageInput: nil)
    }

    public func answer(session: KioskSessionID, question: String, position: Int, input: KioskInput, pageInput: PageInput?) async throws(KioskError) -> KioskAnswerResult {
        let answer: SessionAnswer.Input
        switch input {
        case .skip: answer = .skip
        case .entry(let entry): answer = .entry(entry)
        }
        let result: AnswerResult
        do {
            result = try await sessions.take(SessionAnswer(session: session.rawValue, input: answer, question: question, position: position, pageInput: pageInput))
        } catch where error.code == .questionChanged && error.session != nil {
            return .questionChanged(error.session!.respondentView)
        } catch {
            throw KioskError(error)
        }
        guard !result.accepted else { return .accepted(result.session.respondentView) }
        let rejection: KioskRejection
        switch result.rejection ?? .rule {
        case .rule: rejection = .rule(message: result.message ?? "")
        case .missing: rejection = .missing
        case .unreadable: rejection = .unreadable(detail: result.message ?? "")
        }
        return .rejected(rejection, result.session.respondentView)
    }

    public func back(session: KioskSessionID) async throws(KioskError) -> RespondentView {
        do {
            return try await sessions.back(session: session.rawValue).respondentView
        } catch {
            throw KioskError(error)
        }
    }

    public func abandon(session: KioskSessionID) async throws(KioskError) {
        do {
            try await sessions.abandon(session: session.rawValue)
        } catch {
            throw KioskError(error)
        }
    }

    public func view(session: KioskSessionID) async throws(KioskError) -> RespondentView {
        do {
            return try await sessions.session(id: session.rawValue).respondentView
        } catch {
            throw KioskError(error)
        }
    }
}

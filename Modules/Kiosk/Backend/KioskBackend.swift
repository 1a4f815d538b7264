public import Entities

/// What the kiosk pages need from the session logic.
///
/// The daemon implements it over its session manager (the same domain calls the control API
/// makes); the tests implement it over the project's survey in memory. Session ids are opaque
/// to the kiosk: it keeps them server-side and never sends them to a browser.
///
/// Every call is made on behalf of one browser; the kiosk serialises nothing, so an
/// implementation must accept concurrent calls for different sessions (and, from a double tap,
/// for the same session: the `question`/`position` of ``answer(session:question:position:input:)``
/// let it recognise a stale one).
public protocol KioskBackend: Sendable {
    /// Starts a session in `language` at the survey's first stage.
    /// - Parameters:
    ///   - consent: the version of the consent notice the respondent agreed to, recorded with the
    ///     session (journaled with it) and sent with its uploads; nil when none was asked.
    /// - Returns: the new session, asking its first question.
    /// - Throws: ``KioskError`` `.unavailable` when no session can be started now.
    func start(language: KioskLanguage, consent: String?) async throws(KioskError) -> RespondentView

    /// A respondent declined the consent notice: nothing of theirs is kept, only the count.
    func consentDeclined(language: KioskLanguage) async

    /// Answers (or skips) the question the respondent saw.
    ///
    /// - Parameters:
    ///   - question: the name of the form the page showed.
    ///   - position: its 1-based position in the stage, as the page showed it.
    ///   - input: the values posted, or a skip.
    /// - Returns: `.questionChanged` (and nothing recorded) when the session no longer asks that
    ///   question at that position (a double tap, a second tab); `.rejected` when the answer does
    ///   not pass the form's rules; `.accepted` with the session after the answer.
    func answer(session: KioskSessionID, question: String, position: Int, input: KioskInput) async throws(KioskError) -> KioskAnswerResult

    /// The same, with what the page counted of the person's input on the question (paradata for
    /// the data-quality flags; nil when the page's script did not send it). It never decides
    /// whether the answer is accepted.
    func answer(session: KioskSessionID, question: String, position: Int, input: KioskInput, pageInput: PageInput?) async throws(KioskError) -> KioskAnswerResult

    /// Goes back to the previous question of the current stage, whose current answer the view
    /// carries. When there is none (``RespondentView/canGoBack`` is false), returns the session
    /// unchanged.
    func back(session: KioskSessionID) async throws(KioskError) -> RespondentView

    /// Ends the session as abandoned (the respondent walked away); its answers are not uploaded.
    /// Abandoning a closed or unknown session does nothing.
    func abandon(session: KioskSessionID) async throws(KioskError)

    /// The session as it is now.
    func view(session: KioskSessionID) async throws(KioskError) -> RespondentView
}

extension KioskBackend {
    /// A backend that keeps no paradata answers without it.
    public func answer(session: KioskSessionID, question: String, position: Int, input: KioskInput, pageInput: PageInput?) async throws(KioskError) -> KioskAnswerResult {
        try await answer(session: session, question: question, position: position, input: input)
    }

    /// Starts a session without consent (the kiosk asks for none).
    public func start(language: KioskLanguage) async throws(KioskError) -> RespondentView {
        try await start(language: language, consent: nil)
    }
}

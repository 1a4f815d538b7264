/// How the control API reports each ``SessionError``: its HTTP status and stable wire code, in
/// this one place (`doc/control-api.md` lists them). The message is the session error's own, and
/// the session it carries is sent as its view.
extension ControlError {
    public init(_ error: SessionError) {
        let (status, code) = Self.reply(for: error.code)
        self.init(status: status, code: code, error.message, session: error.session?.view())
    }

    /// The status and wire code of a session error code.
    static func reply(for code: SessionError.Code) -> (status: Int, code: String) {
        switch code {
        case .badLanguage: (400, "bad_language")
        case .badPosition: (400, "bad_position")
        case .noSuchSession: (404, "no_such_session")
        case .noSuchStage: (404, "no_such_stage")
        case .noOpenSession: (409, "no_open_session")
        case .severalOpen: (409, "several_sessions")
        case .notAsking: (409, "not_asking")
        case .sessionClosed: (409, "session_closed")
        case .questionChanged: (409, "question_changed")
        case .replayMismatch: (500, SessionReplayError.code)
        case .journalUnavailable: (503, "journal_unavailable")
        case .queueFailed: (503, "queue_failed")
        case .definitionUnavailable: (503, "definition_unavailable")
        case .definitionInvalid: (503, "definition_invalid")
        }
    }
}

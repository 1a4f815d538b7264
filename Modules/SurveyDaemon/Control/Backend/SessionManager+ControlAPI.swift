public import ControlAPI

/// The session manager as the control API calls it: requests in, views out. A session error is
/// passed on as it is; ``ControlErrorMiddleware`` turns it into the reply (`ControlError(_:)`).
/// Views are built off the manager's actor.
extension SessionManager {
    /// Starts a session (`POST /v1/sessions`).
    public nonisolated func start(_ request: StartSessionRequest) async throws(SessionError) -> SessionView {
        try await start(stage: request.typeId, language: request.lang).view()
    }

    /// Answers the current question of a session (`POST /v1/answers`).
    public nonisolated func answer(_ request: AnswerRequest) async throws(SessionError) -> AnswerReply {
        let result = try await take(SessionAnswer(request))
        return AnswerReply(accepted: result.accepted, message: result.message, repeated: result.repeated ? true : nil, session: result.session.view())
    }

    /// One session (`GET /v1/sessions/ID`).
    public nonisolated func view(id: String) async throws(SessionError) -> SessionView {
        try await session(id: id).view()
    }

    /// Closed sessions that ended `queued` and whose upload was later delivered with a follow-up
    /// stage, most recently closed first, at most `limit`: `surveyctl status` shows them, since
    /// the respondent left before the server named the stage.
    public nonisolated func recentFollowUps(limit: Int) async -> [SessionView] {
        await queuedSessionsWithFollowUps(limit: limit).map { $0.view() }
    }
}

extension SessionAnswer {
    /// The control API's request as the session manager takes it: the words typed, or a skip.
    init(_ request: AnswerRequest) {
        self.init(session: request.session, input: request.skip ? .skip : .words(request.values), question: request.question, position: request.position)
    }
}

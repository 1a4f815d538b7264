import Entities
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Logging

/// The calls a front end makes to start and look at sessions (answers: `SessionManager+Answer.swift`).
extension SessionManager {
    /// Starts a session at the first question of `stage` in `language`.
    ///
    /// - Parameters:
    ///   - stage: the stage to start; nil for ``Settings/firstStage``.
    ///   - language: nil for ``Settings/defaultLanguage``.
    public func start(stage: String?, language: String?, consent: String? = nil) async throws(SessionError) -> Session {
        let named = stage
        let stage = stage ?? settings.firstStage
        let language = language ?? settings.defaultLanguage
        guard Language(rawValue: language) != nil else {
            throw SessionError(.badLanguage, "lang must be \(Language.choices), not \"\(language)\"")
        }
        let definition: LoadedDefinition
        do {
            definition = try await loadDefinition(stage: stage, language: language, earlierAnswers: [])
        } catch where named == nil && error.code == .noSuchStage {
            throw firstStageIsMissing(stage: stage, language: language, error)
        }
        if named == nil || named == settings.firstStage, firstStageMissing?.stage == stage {
            firstStageMissing = nil
            logger.notice("the survey server has the first stage again", metadata: ["firstStage": "\(stage)"])
        }
        let id = UUID()
        let time = now()
        let event = SessionEvent.stageStarted(session: id, stage: stage, language: language, definitionHash: definition.hash, at: time)
        // The consent is journaled with the start, in the same write: a session never exists
        // without the notice its respondent agreed to.
        let consented = consent.map { SessionEvent.consentGiven(session: id, version: $0) }
        try await persist([event] + (consented.map { [$0] } ?? []))
        var session = Session(id: id, stage: stage, language: language, definitionHash: definition.hash, questionnaire: definition.questionnaire, startedAt: time)
        if let consented { try? session.apply(consented) }
        sessions[id] = session
        stageBegan(id)
        logger.info("session started", metadata: ["session": "\(id)", "stage": "\(stage)", "lang": "\(language)"])
        return session
    }

    /// Records that the survey server has no questionnaire for the first stage (`firstStage`),
    /// for the log and `surveyctl status`, and returns the error for the front end.
    private func firstStageIsMissing(stage: String, language: String, _ error: SessionError) -> SessionError {
        let message = "the survey server has no questionnaire for the first stage \(stage) (\(language)), so sessions that name no stage cannot start; set firstStage to a stage the server has, or ask the survey's owner to publish \(stage)"
        if firstStageMissing?.stage != stage {
            firstStageMissing = FirstStageMissing(stage: stage, language: language, since: now())
        }
        logger.error("\(message)", metadata: ["firstStage": "\(stage)", "lang": "\(language)", "error": "\(error.message)"])
        return SessionError(.noSuchStage, message)
    }

    /// Goes back to the previous question of the session's current stage, recording it; the
    /// answer given there is the question's current value until it is answered again or skipped.
    /// A session that cannot go back (``Session/canGoBack``) is returned unchanged.
    public func back(session id: String) async throws(SessionError) -> Session {
        let uuid = try resolve(id)
        return try await withSession(uuid) { session throws(SessionError) in
            if case .asking = session.state, isIdle(session) {
                try await close(&session, .abandoned)
                throw SessionError(.sessionClosed, "session \(session.id.text(uppercase: false)) was idle too long and is closed as abandoned; start a new one")
            }
            guard let event = session.back(at: now()) else { return session }
            try await record([event], on: &session)
            wentBack(uuid)
            lastAnswers[uuid] = nil
            return session
        }
    }

    /// Closes a session that is asking as `abandoned` (the respondent walked away); its stage is
    /// not uploaded. A session that is closed, awaiting a delivery (its stage is queued already)
    /// or unknown is left as it is.
    public func abandon(session id: String) async throws(SessionError) {
        guard let uuid = UUID(canonicalText: id), sessions[uuid] != nil else { return }
        do {
            try await withSession(uuid) { session throws(SessionError) in
                guard case .asking = session.state else { return }
                try await close(&session, .abandoned)
            }
        } catch where error.code == .noSuchSession {
            // Retired by a journal compaction meanwhile: it was closed already.
        }
    }

    /// The session with `id` (its canonical text, in either case), open or closed.
    public func session(id: String) throws(SessionError) -> Session {
        guard let uuid = UUID(canonicalText: id), let session = sessions[uuid] else { throw .noSuchSession(id) }
        return session
    }

    /// Open sessions, oldest activity first.
    public func openSessions() -> [Session] {
        sessions.values.filter(\.isOpen).sorted { $0.lastActivity < $1.lastActivity }
    }

    /// Closed sessions that ended `queued` and whose upload was later delivered with a follow-up
    /// stage, most recently closed first, at most `limit`: the respondent left before the server
    /// named the stage, so the operator is shown it.
    ///
    /// The daemon keeps every session of its journal in memory, so this covers the sessions since
    /// the journal's last compaction.
    public func queuedSessionsWithFollowUps(limit: Int) -> [Session] {
        Array(
            sessions.values
                .filter { session in
                    guard case .closed(.queued) = session.state else { return false }
                    return session.followUp != nil
                }
                .sorted { ($0.lastActivity, $0.id.uuidString) > ($1.lastActivity, $1.id.uuidString) }
                .prefix(max(0, limit)))
    }
}

/// The survey server has no questionnaire for the first stage (`firstStage`): sessions that name
/// no stage (the kiosk's, `surveyctl start` without `--type`) cannot start until it has one or
/// the setting names another stage.
public struct FirstStageMissing: Sendable, Hashable {
    public var stage: String
    /// The language of the start that found it missing.
    public var language: String
    /// When a start first found it missing.
    public var since: Date
}

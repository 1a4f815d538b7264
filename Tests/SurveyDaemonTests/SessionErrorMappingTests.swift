import ControlAPI
import Entities
import Foundation
import HTTPTypes
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// The control API's status and wire code of every session error, as `doc/control-api.md`
/// lists them; the message passes through and a session goes as its view.
@Suite(.timeLimit(.minutes(5))) struct SessionErrorMappingTests {
    static let table: [SessionError.Code: (status: Int, code: String)] = [
        .badLanguage: (400, "bad_language"),
        .badPosition: (400, "bad_position"),
        .noSuchSession: (404, "no_such_session"),
        .noSuchStage: (404, "no_such_stage"),
        .noOpenSession: (409, "no_open_session"),
        .severalOpen: (409, "several_sessions"),
        .notAsking: (409, "not_asking"),
        .sessionClosed: (409, "session_closed"),
        .questionChanged: (409, "question_changed"),
        .replayMismatch: (500, "session_replay_mismatch"),
        .journalUnavailable: (503, "journal_unavailable"),
        .queueFailed: (503, "queue_failed"),
        .definitionUnavailable: (503, "definition_unavailable"),
        .definitionInvalid: (503, "definition_invalid"),
    ]

    @Test(arguments: SessionError.Code.allCases)
    func eachCodeHasItsReply(_ code: SessionError.Code) throws {
        let expected = try #require(Self.table[code], "\(code) is not in the table")
        let reply = ControlError(SessionError(code, "what to do"))
        #expect(reply.status.code == expected.status && reply.code == expected.code, "\(code)")
        #expect(reply.message == "what to do" && reply.session == nil)
    }

    @Test func theSessionAnErrorCarriesGoesAsItsView() throws {
        let questionnaire = try Questionnaire.decode(response: try Fixtures.data("questions/common.en.json"), stage: "common")
        let session = Session(id: UUID(), stage: "common", language: "en", definitionHash: "h", questionnaire: questionnaire, startedAt: Date(timeIntervalSince1970: 1_800_000_000))
        let reply = ControlError(SessionError(.questionChanged, "moved on", session: session))
        #expect(reply.session == session.view())
        #expect(reply.session?.question?.name == "name")
    }

    @Test(arguments: [
        (DefinitionSourceError.Code.noSuchStage, SessionError.Code.noSuchStage),
        (.unavailable, .definitionUnavailable),
        (.invalid, .definitionInvalid),
    ])
    func definitionSourceErrorsKeepTheirMeaning(_ source: DefinitionSourceError.Code, _ session: SessionError.Code) {
        let error = SessionError(DefinitionSourceError(source, "the message"))
        #expect(error.code == session && error.message == "the message")
    }
}

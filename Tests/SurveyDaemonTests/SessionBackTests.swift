import Entities
import Foundation
@testable import SurveyDaemon
import SurveyTesting
import Testing

/// Going back to the previous question of a stage: the change is an event, the later answer
/// replaces the earlier one, and rules see the latest values.
@Suite(.timeLimit(.minutes(5))) struct SessionBackTests {
    let common: Questionnaire
    let stage1: Questionnaire
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        common = try Questionnaire.decode(response: try Fixtures.data("questions/common.en.json"), stage: "common")
        stage1 = try Questionnaire.decode(response: try Fixtures.data("questions/1.en.json"), stage: "1", knownAnswerNames: ["email"])
    }

    func newSession(_ questionnaire: Questionnaire) -> Session {
        Session(id: UUID(), stage: questionnaire.stage, language: "en", definitionHash: "h1", questionnaire: questionnaire, startedAt: start)
    }

    /// Decides and applies; returns the events (empty when refused, with an issue recorded).
    @discardableResult
    func apply(_ decision: AnswerDecision, to session: inout Session) throws -> [SessionEvent] {
        guard case .accepted(let events) = decision else {
            Issue.record("refused: \(decision)")
            return []
        }
        for event in events { try session.apply(event) }
        return events
    }

    func back(_ session: inout Session, at time: Date? = nil) throws -> SessionEvent? {
        guard let event = session.back(at: time ?? start) else { return nil }
        try session.apply(event)
        return event
    }

    @Test func theFirstQuestionOfAStageCannotGoBack() throws {
        var session = newSession(common)
        #expect(!session.canGoBack)
        #expect(session.back(at: start) == nil)
        try apply(session.answer(["Kim"], at: start), to: &session)
        #expect(session.canGoBack)
        #expect(try back(&session) == .wentBack(session: session.id, form: "name", at: start))
        #expect(session.currentForm?.name == "name")
        #expect(session.progress == (1, 5))
        #expect(!session.canGoBack)
        // The earlier answer stays until it is answered again.
        #expect(session.stageAnswers["name"] == .string("Kim"))
    }

    @Test func aChangedAnswerReplacesTheEarlierOneAndRulesSeeIt() throws {
        var session = newSession(common)
        try apply(session.answer(["Kim"], at: start), to: &session)
        try apply(session.answer(["kim.cs@gmail.com"], at: start), to: &session)
        _ = try back(&session)
        #expect(session.currentForm?.name == "email")
        try apply(session.answer(["lee.yh@gmail.com"], at: start), to: &session)
        // The confirmation is checked against the changed address, not the first one.
        guard case .rejected(_, let message, .rule) = session.answer(["kim.cs@gmail.com"], at: start) else {
            Issue.record("the old address was accepted as the confirmation"); return
        }
        #expect(message == "The e-mail addresses do not match.")
        try apply(session.answer(["lee.yh@gmail.com"], at: start), to: &session)
        try apply(session.answer(["30"], at: start), to: &session)
        try apply(session.answer(["5"], at: start), to: &session)
        #expect(session.upload.answers["email"] == .string("lee.yh@gmail.com"))
        #expect(session.allAnswers["email"] == .string("lee.yh@gmail.com"))
    }

    @Test func skippingAfterGoingBackWithdrawsTheAnswer() throws {
        var session = newSession(stage1)
        try apply(session.answer(["extra", "craft", "cider"], at: start), to: &session)
        try apply(session.answer(["home", "bar"], at: start), to: &session)
        let optional = try #require(session.currentForm)
        #expect(!optional.isRequired)
        try apply(session.answer(["3"], at: start), to: &session)
        #expect(session.stageAnswers[optional.name] != nil)
        _ = try back(&session)
        #expect(session.currentForm?.name == optional.name)
        try apply(session.skip(at: start), to: &session)
        #expect(session.stageAnswers[optional.name] == nil)
        #expect(session.allAnswers[optional.name] == nil)
    }

    @Test func goingBackMovesTheIdleClock() throws {
        var session = newSession(common)
        try apply(session.answer(["Kim"], at: start), to: &session)
        let later = start.addingTimeInterval(90)
        _ = try back(&session, at: later)
        #expect(session.lastActivity == later)
    }

    @Test func replayingABackRebuildsTheSameSession() throws {
        var live = newSession(common)
        var journal: [SessionEvent] = []
        journal += try apply(live.answer(["Kim"], at: start), to: &live)
        journal += try apply(live.answer(["kim.cs@gmail.com"], at: start), to: &live)
        journal.append(try #require(try back(&live)))
        journal += try apply(live.answer(["lee.yh@gmail.com"], at: start), to: &live)
        let decoded = try JSONDecoder().decode([SessionEvent].self, from: try JSONEncoder().encode(journal))
        var rebuilt = Session(id: live.id, stage: "common", language: "en", definitionHash: "h1", questionnaire: common, startedAt: start)
        for event in decoded { try rebuilt.apply(event) }
        #expect(rebuilt == live)
        #expect(rebuilt.currentForm?.name == "emailConfirm")
    }

    @Test func aBackThatDoesNotFitIsRefused() throws {
        var session = newSession(common)
        // At the first question.
        #expect(throws: SessionReplayError.self) { try session.apply(.wentBack(session: session.id, form: "name", at: start)) }
        try apply(session.answer(["Kim"], at: start), to: &session)
        // To a question that is not the previous one.
        #expect(throws: SessionReplayError.self) { try session.apply(.wentBack(session: session.id, form: "age", at: start)) }
        #expect(session.currentForm?.name == "email")
        // After the stage is complete.
        for words in [["kim.cs@gmail.com"], ["kim.cs@gmail.com"], ["30"], ["5"]] {
            try apply(session.answer(words, at: start), to: &session)
        }
        #expect(!session.canGoBack)
        #expect(throws: SessionReplayError.self) { try session.apply(.wentBack(session: session.id, form: "like", at: start)) }
    }
}

import ControlAPI
import Entities
import Foundation
@testable import SurveyDaemon
import Synchronization
import Testing

/// Back and abandon, the calls the kiosk pages make beside start and answer.
extension SessionManagerTests {
    func journaledBacks() -> [String] {
        journal.events.withLock { events in
            events.compactMap { event in
                if case .wentBack(_, let form, _) = event { return form }
                return nil
            }
        }
    }

    @Test(.timeLimit(.minutes(5))) func backIsJournaledAndTheChangedAnswerIsTheOneUploaded() async throws {
        let m = manager(deliveryWait: .seconds(5))
        deliverImmediately(to: m) { _ in nil }
        let id = try await m.start(StartSessionRequest()).id
        _ = try await m.answer(AnswerRequest(values: ["Kim"]))
        _ = try await m.answer(AnswerRequest(values: ["kim.cs@gmail.com"]))
        let back = try await m.back(session: id)
        #expect(back.currentForm?.name == "email")
        #expect(back.stageAnswers["email"] == .string("kim.cs@gmail.com"))
        #expect(journaledBacks() == ["email"])
        for words in [["lee.yh@gmail.com"], ["lee.yh@gmail.com"], ["30"], ["5"]] {
            let reply = try await m.answer(AnswerRequest(values: words))
            #expect(reply.accepted, "\(words): \(reply.message ?? "")")
        }
        let uploads = queue.submissions.withLock { $0 }
        #expect(uploads.count == 1)
        let body = try JSONSerialization.jsonObject(with: Data(try #require(uploads.first).body)) as? [String: [String: Any]]
        #expect(body?["answers"]?["email"] as? String == "lee.yh@gmail.com")
        #expect(try await m.session(id: id).state == .closed(.thanks))
    }

    @Test(.timeLimit(.minutes(5))) func backAtTheFirstQuestionChangesNothing() async throws {
        let m = manager()
        let id = try await m.start(StartSessionRequest()).id
        let before = journal.events.withLock { $0 }
        let session = try await m.back(session: id)
        #expect(session.currentForm?.name == "name")
        #expect(journal.events.withLock { $0 } == before)
    }

    @Test(.timeLimit(.minutes(5))) func backOfAnUnknownSessionIsNoSuchSession() async throws {
        let m = manager()
        await #expect(throws: SessionError.self) { _ = try await m.back(session: UUID().uuidString) }
        do {
            _ = try await m.back(session: "not-an-id")
            Issue.record("back of a malformed id went through")
        } catch {
            #expect(error.code == .noSuchSession)
        }
    }

    @Test(.timeLimit(.minutes(5))) func backOfAnIdleSessionClosesItAsAbandoned() async throws {
        let m = manager(idleTimeout: .seconds(60))
        let id = try await m.start(StartSessionRequest()).id
        _ = try await m.answer(AnswerRequest(values: ["Kim"]))
        clock.advance(61)
        do {
            _ = try await m.back(session: id)
            Issue.record("an idle session went back")
        } catch {
            #expect(error.code == .sessionClosed)
        }
        #expect(try await m.session(id: id).state == .closed(.abandoned))
    }

    @Test(.timeLimit(.minutes(5))) func abandonClosesAnAskingSessionOnceAndIgnoresTheRest() async throws {
        let m = manager()
        let id = try await m.start(StartSessionRequest()).id
        _ = try await m.answer(AnswerRequest(values: ["Kim"]))
        try await m.abandon(session: id)
        #expect(try await m.session(id: id).state == .closed(.abandoned))
        let closes = { self.journal.events.withLock { $0.filter { if case .closed = $0 { true } else { false } }.count } }
        #expect(closes() == 1)
        // Again, unknown, malformed: nothing happens.
        try await m.abandon(session: id)
        try await m.abandon(session: UUID().uuidString)
        try await m.abandon(session: "junk")
        #expect(closes() == 1)
        #expect(queue.submissions.withLock { $0 }.isEmpty, "an abandoned stage is not uploaded")
    }

    @Test(.timeLimit(.minutes(5))) func rejectionsSayWhatKindTheyAre() async throws {
        let m = manager()
        let id = try await m.start(StartSessionRequest()).id
        let rule = try await m.take(SessionAnswer(session: id, input: .words(["K"])))
        #expect(rule.rejection == .rule && rule.message == "Your name must be 2 to 20 characters long.")
        let missing = try await m.take(SessionAnswer(session: id, input: .skip))
        #expect(missing.rejection == .missing)
        _ = try await m.take(SessionAnswer(session: id, input: .words(["Kim"])))
        _ = try await m.take(SessionAnswer(session: id, input: .words(["kim.cs@gmail.com"])))
        _ = try await m.take(SessionAnswer(session: id, input: .words(["kim.cs@gmail.com"])))
        let unreadable = try await m.take(SessionAnswer(session: id, input: .words(["thirty"])))
        #expect(unreadable.rejection == .unreadable)
        #expect(try await m.take(SessionAnswer(session: id, input: .words(["30"]))).rejection == nil)
    }
}

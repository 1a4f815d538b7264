import ControlAPI
import Foundation
import HTTPTypes
import SurveyDaemon
import Synchronization
import Testing

/// Answers that name the question they answer: a session that moved on refuses them, and the
/// same answer sent twice is recorded once.
extension SessionManagerTests {
    /// The answers journaled, as (form, value text) pairs.
    func journaledAnswers() -> [String] {
        journal.events.withLock { events in
            events.compactMap { event in
                switch event {
                case .answerAccepted(_, let form, _): form
                case .answerSkipped(_, let form): form + " (skipped)"
                default: nil
                }
            }
        }
    }

    @Test(.timeLimit(.minutes(5))) func aDoubleTapIsOneAnswer() async throws {
        let m = manager()
        _ = try await m.start(StartSessionRequest())
        #expect(try await m.answer(AnswerRequest(values: ["Kim"], question: "name", position: 1)).accepted)
        // The same e-mail is also a valid answer to the next question: without its question, the
        // second tap would be taken for the confirmation.
        let tap = AnswerRequest(values: ["kim.cs@gmail.com"], question: "email", position: 2)
        async let first = m.answer(tap)
        async let second = m.answer(tap)
        let replies = try await [first, second]
        #expect(replies.allSatisfy { $0.accepted })
        #expect(replies.filter { $0.repeated == true }.count == 1)
        #expect(replies.allSatisfy { $0.session.question?.name == "emailConfirm" && $0.session.current == 3 })
        #expect(journaledAnswers() == ["name", "email"])
    }

    @Test(.timeLimit(.minutes(5))) func aDifferentAnswerToAnOldQuestionIsRefusedWithTheCurrentQuestion() async throws {
        let m = manager()
        let started = try await m.start(StartSessionRequest())
        _ = try await m.answer(AnswerRequest(values: ["Kim"], question: "name", position: 1))
        _ = try await m.answer(AnswerRequest(values: ["kim.cs@gmail.com"], question: "email", position: 2))
        let before = journal.events.withLock { $0 }
        for stale in [
            AnswerRequest(values: ["lee@gmail.com"], question: "email", position: 2),  // another value
            AnswerRequest(values: ["kim.cs@gmail.com"], question: "email", position: 3),  // another position
            AnswerRequest(values: ["kim.cs@gmail.com"], question: "emailConfirm", position: 2),  // the right name at the old place
            AnswerRequest(values: ["Kim"], question: "name", position: 1),  // an older answer
            AnswerRequest(values: ["lee@gmail.com"], position: 2),  // the old place alone, another value
        ] {
            do throws(SessionError) {
                _ = try await m.answer(stale)
                Issue.record("\(stale) was taken")
            } catch {
                let reply = ControlError(error)
                #expect(error.code == .questionChanged && reply.status == 409 && reply.code == "question_changed", "\(error)")
                #expect(reply.session?.id == started.id)
                #expect(reply.session?.question?.name == "emailConfirm")
                #expect(reply.message.contains("now asks \"emailConfirm\" (question 3 of 5"), "\(reply.message)")
            }
        }
        #expect(journal.events.withLock { $0 } == before, "nothing was recorded")
        // The current question, named, is answered as usual; a wrong value is rejected, not refused.
        #expect(try await m.answer(AnswerRequest(values: ["other@gmail.com"], question: "emailConfirm", position: 3)).message == "The e-mail addresses do not match.")
        #expect(try await m.answer(AnswerRequest(values: ["kim.cs@gmail.com"], question: "emailConfirm")).session.question?.name == "age")
    }

    @Test(.timeLimit(.minutes(5))) func theAnswerThatCompletesAStageIsRecordedAndQueuedOnce() async throws {
        let m = manager(deliveryWait: .seconds(5))
        deliverImmediately(to: m) { _ in "1" }
        _ = try await m.start(StartSessionRequest())
        let names = ["name", "email", "emailConfirm", "age", "like"]
        for (index, words) in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"], ["30"]].enumerated() {
            #expect(try await m.answer(AnswerRequest(values: words, question: names[index], position: index + 1)).accepted)
        }
        let last = AnswerRequest(values: ["5"], question: "like", position: 5)
        async let first = m.answer(last)
        async let second = m.answer(last)
        let replies = try await [first, second]
        #expect(replies.allSatisfy { $0.accepted && $0.session.stage == "1" && $0.session.question?.name == "type" })
        #expect(replies.filter { $0.repeated == true }.count == 1)
        #expect(queue.submissions.withLock { $0.count } == 1, "queued once")
        let completed = journal.events.withLock { $0.filter { if case .stageCompleted = $0 { true } else { false } }.count }
        #expect(completed == 1)
        // Sent again later, it still changes nothing.
        let again = try await m.answer(last)
        #expect(again.repeated == true && again.session.question?.name == "type")
        #expect(journaledAnswers() == names)
    }

    @Test(.timeLimit(.minutes(5))) func aRepeatOfTheAnswerThatClosedTheSessionShowsItClosed() async throws {
        let m = manager(deliveryWait: .milliseconds(20))
        let id = try await m.start(StartSessionRequest()).id
        for (index, (name, words)) in [("name", "Kim"), ("email", "kim.cs@gmail.com"), ("emailConfirm", "kim.cs@gmail.com")].enumerated() {
            _ = try await m.answer(AnswerRequest(session: id, values: [words], question: name, position: index + 1))
        }
        // A closed session is found by its id only.
        let underage = AnswerRequest(session: id, values: ["17"], question: "age", position: 4)
        #expect(try await m.answer(underage).session.outcome == "no_target")
        let repeated = try await m.answer(underage)
        #expect(repeated.repeated == true && repeated.session.outcome == "no_target")
        do throws(SessionError) {
            _ = try await m.answer(AnswerRequest(session: id, values: ["30"], question: "age", position: 4))
            Issue.record("another age was taken by a closed session")
        } catch {
            let reply = ControlError(error)
            #expect(reply.code == "question_changed" && reply.session?.outcome == "no_target")
            #expect(reply.message.contains("it is closed (no_target)"))
        }
        // Without a question, a closed session says so as before.
        do throws(SessionError) {
            _ = try await m.answer(AnswerRequest(session: id, values: ["30"]))
            Issue.record("a closed session took an answer")
        } catch {
            #expect(error.code == .notAsking)
            #expect(ControlError(error) == ControlError.conflict("not_asking", "the session is closed (no_target); start a new session with `surveyctl start`"))
        }
    }

    @Test(.timeLimit(.minutes(5))) func withoutAQuestionAnAnswerGoesToWhateverIsAsked() async throws {
        let m = manager()
        _ = try await m.start(StartSessionRequest())
        _ = try await m.answer(AnswerRequest(values: ["Kim"]))
        let first = try await m.answer(AnswerRequest(values: ["kim.cs@gmail.com"]))
        let second = try await m.answer(AnswerRequest(values: ["kim.cs@gmail.com"]))
        #expect(first.accepted && second.accepted && second.repeated == nil)
        #expect(second.session.question?.name == "age")
        #expect(journaledAnswers() == ["name", "email", "emailConfirm"])
    }

    /// The last answers are remembered in memory only: after a restart a repeat is refused,
    /// which records nothing either.
    @Test(.timeLimit(.minutes(5))) func afterARestartARepeatIsRefused() async throws {
        let first = manager()
        _ = try await first.start(StartSessionRequest())
        let tap = AnswerRequest(values: ["Kim"], question: "name", position: 1)
        _ = try await first.answer(tap)
        #expect(try await first.answer(tap).repeated == true)
        let second = manager()
        try await second.restore()
        await #expect(throws: SessionError.self) { try await second.answer(tap) }
        #expect(journaledAnswers() == ["name"])
    }

    @Test(.timeLimit(.minutes(5))) func aPositionBelowOneIsABadRequest() async throws {
        let m = manager()
        _ = try await m.start(StartSessionRequest())
        for position in [0, -1, Int.min] {
            do throws(SessionError) {
                _ = try await m.answer(AnswerRequest(values: ["Kim"], question: "name", position: position))
                Issue.record("position \(position) was taken")
            } catch {
                #expect(error.code == .badPosition && ControlError(error).status == 400 && ControlError(error).code == "bad_position")
            }
        }
        #expect(journaledAnswers().isEmpty)
    }
}

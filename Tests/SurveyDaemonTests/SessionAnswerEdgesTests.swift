import ControlAPI
import Entities
import Foundation
import Kiosk
import Logging
@testable import SurveyDaemon
import SurveyTesting
import Synchronization
import Testing

/// The control API and the kiosk hand the session manager one kind of answer
/// (`SessionAnswer`), and the session decides what it means, a blank one included, inside the
/// session's lock: both front ends get the same decision.
extension SessionManagerTests {
    /// The answers that reach `age` (question 4 of stage `common`).
    static let toAge = [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"]]

    @Test(.timeLimit(.minutes(5))) func aBlankAnswerToARequiredQuestionIsRefusedAlikeThroughBothEdges() async throws {
        let m = manager()
        let kiosk = SessionKioskBackend(sessions: m)
        let viaControl = try await m.start(StartSessionRequest()).id
        let viaKiosk = try await kiosk.start(language: .en).session
        for id in [viaControl, viaKiosk.rawValue] {
            for words in Self.toAge { #expect(try await m.answer(AnswerRequest(session: id, values: words)).accepted) }
        }
        // The control edge: not accepted, and why (surveyctl prints it and exits 65).
        let reply = try await m.answer(AnswerRequest(session: viaControl, values: [], question: "age", position: 4))
        #expect(!reply.accepted)
        #expect(reply.message == "This question needs an answer.")
        #expect(reply.session.question?.name == "age")
        // The kiosk edge: "please answer" on the same question.
        let page = try await kiosk.answer(session: viaKiosk, question: "age", position: 4, input: .entry(FormEntry(values: [""])))
        guard case .rejected(.missing, let view) = page else {
            Issue.record("expected a missing answer, got \(page)")
            return
        }
        #expect(view.question?.form.name == "age" && view.position == 4)
        // One decision behind both.
        let words = try await m.take(SessionAnswer(session: viaControl, input: .words([" "])))
        let entry = try await m.take(SessionAnswer(session: viaKiosk.rawValue, input: .entry(FormEntry())))
        #expect(words.rejection == .missing && entry.rejection == .missing)
        #expect(words.message == entry.message)
        #expect(!journaledAnswers().contains("age"))
    }

    @Test(.timeLimit(.minutes(5))) func anOptionalQuestionPostedEmptyIsSkippedByTheSession() async throws {
        let m = manager(deliveryWait: .seconds(5))
        deliverRouted(to: m)
        let kiosk = SessionKioskBackend(sessions: m)
        let id = try await kiosk.start(language: .en).session
        for words in Self.toAge + [["30"], ["5"], ["wine"], ["home"]] {
            #expect(try await m.answer(AnswerRequest(session: id.rawValue, values: words)).accepted)
        }
        #expect(try await kiosk.view(session: id).question?.form.name == "glassesPerWeek")
        let result = try await kiosk.answer(session: id, question: "glassesPerWeek", position: 3, input: .entry(FormEntry(values: [""])))
        guard case .accepted(let next) = result else {
            Issue.record("expected the question skipped, got \(result)")
            return
        }
        #expect(next.question?.form.name == "pairing")
        #expect(journaledAnswers().last == "glassesPerWeek (skipped)")
    }

    @Test(.timeLimit(.minutes(5))) func whatTheFormDoesNotOfferIsRefusedNamingTheQuestion() async throws {
        let m = manager()
        let kiosk = SessionKioskBackend(sessions: m)
        let id = try await kiosk.start(language: .en).session
        for words in Self.toAge { #expect(try await m.answer(AnswerRequest(session: id.rawValue, values: words)).accepted) }
        let cases: [(question: String, position: Int, values: [String], detail: String)] = [
            ("age", 4, ["thirty"], #"question "age": "thirty" is not a number. Accepted: a number such as 42 or 3.5"#),
            ("age", 4, ["1e999"], #"question "age": "1e999" is out of range for a number. Accepted: a number such as 42 or 3.5"#),
        ]
        for item in cases {
            let result = try await kiosk.answer(session: id, question: item.question, position: item.position, input: .entry(FormEntry(values: item.values)))
            #expect(result.rejection == .unreadable(detail: item.detail), "\(item.values)")
        }
        _ = try await kiosk.answer(session: id, question: "age", position: 4, input: .entry(FormEntry(values: ["30"])))
        // A score of 8, and a position where the kiosk posts values: neither is offered.
        for values in [["8"], ["seven"]] {
            let result = try await kiosk.answer(session: id, question: "like", position: 5, input: .entry(FormEntry(values: values)))
            #expect(result.rejection == .unreadable(detail: "question \"like\": \"\(values[0])\" is not a score. Accepted: a score from 1 to 7"))
        }
        #expect(journaledAnswers() == ["name", "email", "emailConfirm", "age"])
    }
}

extension KioskAnswerResult {
    /// The rejection, when the answer was not accepted.
    var rejection: KioskRejection? {
        if case .rejected(let rejection, _) = self { return rejection }
        return nil
    }
}

/// A blank answer and a real one racing for the same question: the blank one is decided inside
/// the session's lock, after the real one is recorded, so it finds the question answered.
@Suite(.timeLimit(.minutes(5))) struct SessionAnswerRaceTests {
    /// A journal whose appends wait, while held, until released.
    final class HeldJournal: SessionJournal {
        let events = Mutex<[SessionEvent]>([])
        let holding = Mutex(false)
        let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let parked: AsyncStream<Void>
        let parkedContinuation: AsyncStream<Void>.Continuation

        init() {
            (parked, parkedContinuation) = AsyncStream.makeStream(of: Void.self)
        }

        func append(_ new: [SessionEvent]) async throws {
            if holding.withLock({ $0 }) {
                await withCheckedContinuation { continuation in
                    waiting.withLock { $0 = continuation }
                    parkedContinuation.yield()
                }
            }
            events.withLock { $0 += new }
        }

        func release() {
            holding.withLock { $0 = false }
            waiting.withLock { $0.take() }?.resume()
        }

        func replay() async throws -> [SessionEvent] { events.withLock { $0 } }
        func compact(keeping sessions: [[SessionEvent]]) async throws { events.withLock { $0 = sessions.flatMap { $0 } } }
    }

    @Test func aBlankAnswerWaitsForTheAnswerBeingRecordedAndFindsTheQuestionAnswered() async throws {
        let journal = HeldJournal()
        let clock = TestClock()
        let m = SessionManager(
            journal: journal, definitions: FixtureDefinitions(offline: false), queue: RecordingQueue(),
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .milliseconds(50)),
            clock: clock.monotonic, now: { clock.now() }, logger: Logger(label: "test"))
        let kiosk = SessionKioskBackend(sessions: m)
        let id = try await kiosk.start(language: .en).session
        for words in SessionManagerTests.toAge { #expect(try await m.answer(AnswerRequest(session: id.rawValue, values: words)).accepted) }
        journal.holding.withLock { $0 = true }
        let first = Task { try await kiosk.answer(session: id, question: "age", position: 4, input: .entry(FormEntry(values: ["30"]))) }
        var parked = journal.parked.makeAsyncIterator()
        await parked.next()
        // The answer to `age` is being recorded, under the session's lock: the blank one waits for it.
        let blank = Task { try await kiosk.answer(session: id, question: "age", position: 4, input: .entry(FormEntry(values: [""]))) }
        let uuid = try #require(UUID(uuidString: id.rawValue))
        #expect(await eventually { await m.requestsWaiting(for: uuid) == 1 }, "the blank answer waits for the session's lock")
        journal.release()
        guard case .accepted(let next) = try await first.value else {
            Issue.record("the first answer was not accepted")
            return
        }
        #expect(next.question?.form.name == "like")
        let second = try await blank.value
        guard case .questionChanged(let now) = second else {
            Issue.record("expected the question to have changed, got \(second)")
            return
        }
        #expect(now.question?.form.name == "like" && now.position == 5)
    }
}

extension SessionManager {
    /// How many requests wait for the lock of session `id`.
    func requestsWaiting(for id: UUID) -> Int { locks.waiting(id) }
}

import Entities
import Foundation
import Logging
@testable import SurveyDaemon
import Synchronization
import Testing
import Validation

/// What the session manager measures of a stage on its monotonic clock, and the quality it
/// journals with the stage's completion and queues with the upload.
extension SessionManagerTests {
    static let common = [["Kim Minsu"], ["kim@example.com"], ["kim@example.com"], ["30"], ["5"]]

    /// Answers the `common` stage of a new session, `seconds[i]` after the question was put.
    func walk(_ m: SessionManager, seconds: [Double], pageInput: PageInput? = nil) async throws -> UUID {
        let session = try await m.start(stage: "common", language: "en")
        for (index, words) in Self.common.enumerated() {
            clock.advance(seconds[index])
            let result = try await m.take(SessionAnswer(session: session.id.uuidString, input: .words(words), pageInput: pageInput))
            #expect(result.accepted)
        }
        return session.id
    }

    func completion(of id: UUID) -> StageQuality?? {
        for event in journaledEvents().reversed() {
            if case .stageCompleted(id, _, _, _, let quality) = event { return .some(quality) }
        }
        return nil
    }

    @Test(.timeLimit(.minutes(5))) func aStageIsTimedOnTheMonotonicClockAndItsQualityGoesWithTheUpload() async throws {
        let m = manager()
        let human = try await walk(m, seconds: [4.2, 6.1, 3.9, 2.5, 3.3], pageInput: PageInput(taps: 2, keys: 9, spanMilliseconds: 2100, stillThereShown: 0))
        let quality = try #require(completion(of: human) ?? nil)
        #expect(quality.paradata.questions.map(\.milliseconds) == [4200, 6100, 3900, 2500, 3300])
        #expect(quality.paradata.questions.map(\.position) == [0, 1, 2, 3, 4])
        #expect(quality.paradata.questions.allSatisfy { $0.input?.keys == 9 })
        #expect(quality.flags.isEmpty)
        let upload = try #require(queue.submissions.withLock { $0.last })
        #expect(upload.headers["Survey-Paradata"] == "questions=5, timed=5, total_ms=20000, median_ms=3900, backs=0, changed=0, idle_gaps=0, still_there=0")
        #expect(upload.headers["Survey-Quality"] == nil)

        // The same answers again, tapped through seconds later: too fast, and a repeat.
        let tapThrough = try await walk(m, seconds: [0.3, 0.3, 0.4, 0.3, 0.2])
        let fast = try #require(completion(of: tapThrough) ?? nil)
        #expect(fast.flags.map(\.kind) == [.speeding, .rapidRepeat])
        let flagged = try #require(queue.submissions.withLock { $0.last })
        #expect(flagged.headers["Survey-Quality"]?.hasPrefix("speeding;fast=5;judged=5;") == true)
        #expect(flagged.body == AnswersUpload(answers: [
            "name": .string("Kim Minsu"), "email": .string("kim@example.com"), "emailConfirm": .string("kim@example.com"), "age": .integer(30), "like": .integer(5),
        ]).encoded(), "the answers go as given")
    }

    @Test(.timeLimit(.minutes(5))) func backAndAChangedAnswerAreCountedAndTheWallClockDoesNotCount() async throws {
        let m = manager()
        let session = try await m.start(stage: "common", language: "en")
        let id = session.id.uuidString
        clock.advance(3)
        _ = try await m.take(SessionAnswer(session: id, input: .words(["Kim Minsu"])))
        clock.stepWall(-86_400)
        clock.advance(2)
        _ = try await m.back(session: id)
        clock.advance(1.5)
        _ = try await m.take(SessionAnswer(session: id, input: .words(["Lee Minsu"])))
        for words in Self.common.dropFirst() {
            clock.advance(4)
            _ = try await m.take(SessionAnswer(session: id, input: .words(words)))
        }
        let quality = try #require(completion(of: session.id) ?? nil)
        #expect(quality.paradata.backs == 1 && quality.paradata.changed == 1)
        #expect(quality.paradata.questions.map(\.milliseconds) == [3000, 1500, 4000, 4000, 4000, 4000])
        #expect(quality.paradata.questions.map(\.position) == [0, 0, 1, 2, 3, 4])
    }

    @Test(.timeLimit(.minutes(5))) func withDataQualityOffNothingIsMeasuredOrSent() async throws {
        let m = SessionManager(
            journal: journal, definitions: FixtureDefinitions(offline: false), queue: queue,
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .milliseconds(50), quality: nil),
            clock: clock.monotonic, now: { [clock] in clock.now() }, logger: Logger(label: "test"))
        let id = try await walk(m, seconds: [0.1, 0.1, 0.1, 0.1, 0.1])
        #expect(completion(of: id) == .some(nil))
        #expect(queue.submissions.withLock { $0.last }?.headers.isEmpty == true)
    }

    @Test(.timeLimit(.minutes(5))) func anErasureRemovesTheQualityWithTheAnswers() async throws {
        let id = UUID()
        let quality = StageQuality(paradata: StageParadata(questions: [QuestionTiming(position: 0, milliseconds: 300)]), flags: [QualityFlag(.speeding, [1, 1, 300])])
        let events: [SessionEvent] = [
            .stageStarted(session: id, stage: "common", language: "en", definitionHash: "h", at: Date()),
            .answerAccepted(session: id, form: "name", value: .string("Kim")),
            .stageCompleted(session: id, stage: "common", idempotencyKey: id, at: Date(), quality: quality),
            .closed(session: id, outcome: .queued, at: Date()),
        ]
        #expect(events[2].holdsAnswer)
        let erased = SessionManager.withoutAnswers(events)
        let holding = erased.filter(\.holdsAnswer)
        #expect(holding.isEmpty)
        #expect(erased.contains { if case .stageCompleted(_, "common", _, _, nil) = $0 { true } else { false } })
    }
}

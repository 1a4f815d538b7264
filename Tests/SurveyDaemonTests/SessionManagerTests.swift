import ControlAPI
import Entities
import Foundation
import HTTPTypes
import Logging
import Storage
import SurveyDaemon
import SurveyTesting
import Synchronization
import Testing

/// A journal in memory; it can be told to fail.
final class MemoryJournal: SessionJournal {
    let events = Mutex<[SessionEvent]>([])
    let failing = Mutex(false)

    struct Failure: Error, CustomStringConvertible { var description: String { "disk on fire" } }

    func append(_ new: [SessionEvent]) async throws {
        await Task.yield()  // a real journal suspends here: let other requests interleave
        if failing.withLock({ $0 }) { throw Failure() }
        events.withLock { $0 += new }
    }

    func replay() async throws -> [SessionEvent] { events.withLock { $0 } }

    func compact(keeping sessions: [[SessionEvent]]) async throws {
        if failing.withLock({ $0 }) { throw Failure() }
        events.withLock { $0 = sessions.flatMap { $0 } }
    }
}

/// Questionnaires from `mock/questions/`, hashed by stage and language.
struct FixtureDefinitions: DefinitionSource {
    let offline: Bool

    func definition(stage: String, language: String) async throws -> LoadedDefinition {
        if offline { throw DefinitionSourceError(.unavailable, "offline and no cached questionnaire") }
        return try load(stage: stage, language: language)
    }

    func cachedDefinition(hash: String, stage: String) async throws -> LoadedDefinition? {
        let language = String(hash.split(separator: ".").last ?? "")
        return try load(stage: stage, language: language)
    }

    func load(stage: String, language: String) throws -> LoadedDefinition {
        let q = try Questionnaire.decodeDeferringReferences(response: try Fixtures.data("questions/\(stage).\(language).json"), stage: stage)
        return LoadedDefinition(questionnaire: q, hash: "\(stage).\(language)")
    }
}

/// A queue that records submissions; `deliver` decides what the "worker" reports at once.
final class RecordingQueue: SubmissionSink {
    let submissions = Mutex<[SubmissionRequest]>([])
    let failing = Mutex(false)
    let states = Mutex<[UUID: SubmissionState]>([:])
    let onEnqueue = Mutex<(@Sendable (SubmissionRequest) -> Void)?>(nil)
    /// Runs inside `state(of:)` before it answers, to let a delivery finish mid-lookup.
    let duringStateLookup = Mutex<(@Sendable (UUID) async -> Void)?>(nil)

    func enqueue(_ submission: SubmissionRequest) async throws {
        if failing.withLock({ $0 }) { throw MemoryJournal.Failure() }
        let isNew = submissions.withLock { list in
            if list.contains(where: { $0.idempotencyKey == submission.idempotencyKey }) { return false }
            list.append(submission)
            return true
        }
        guard isNew else { return }
        states.withLock { $0[submission.idempotencyKey] = .pending }
        onEnqueue.withLock { $0 }?(submission)
    }

    func state(of key: UUID) async throws -> SubmissionState? {
        let before = states.withLock { $0[key] }
        if let hook = duringStateLookup.withLock({ $0 }) { await hook(key) }
        return before
    }
}

@Suite(.timeLimit(.minutes(5))) struct SessionManagerTests {
    let journal = MemoryJournal()
    let queue = RecordingQueue()
    let clock = TestClock()

    /// - Parameter waitClock: measures the delivery wait.
    func manager(
        deliveryWait: Duration = .milliseconds(50), idleTimeout: Duration = .seconds(600), offline: Bool = false,
        waitClock: (any Clock<Duration>)? = nil
    ) -> SessionManager {
        let clock = clock
        return SessionManager(
            journal: journal, definitions: FixtureDefinitions(offline: offline), queue: queue,
            settings: .init(defaultLanguage: "en", idleTimeout: idleTimeout, deliveryWait: deliveryWait),
            clock: waitClock ?? clock.monotonic, now: { clock.now() }, logger: Logger(label: "test")
        )
    }

    /// Makes the fake worker deliver every submission at once with the routing of `mock/routing.json`.
    func deliverImmediately(to manager: SessionManager, next: @escaping @Sendable (SubmissionRequest) -> String?) {
        let queue = queue
        queue.onEnqueue.withLock {
            $0 = { submission in
                let state = SubmissionState.delivered(response: next(submission))
                queue.states.withLock { $0[submission.idempotencyKey] = state }
                Task { await manager.deliveryFinished(key: submission.idempotencyKey, state: state) }
            }
        }
    }

    func answerCommon(_ manager: SessionManager, like: String = "5") async throws -> AnswerReply {
        var reply: AnswerReply?
        for words in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"], ["30"], [like]] {
            reply = try await manager.answer(AnswerRequest(values: words))
            #expect(reply?.accepted == true, "\(words): \(reply?.message ?? "")")
        }
        return try #require(reply)
    }

    @Test func aStageDeliveredInTimeGoesOnToTheNamedStage() async throws {
        let m = manager(deliveryWait: .seconds(5))
        deliverImmediately(to: m) { _ in "1" }
        let started = try await m.start(StartSessionRequest())
        #expect(started.stage == "common")
        #expect(started.question?.name == "name")
        #expect(started.lang == "en")
        let reply = try await answerCommon(m)
        #expect(reply.session.stage == "1")
        #expect(reply.session.state == "asking")
        #expect(reply.session.question?.name == "type")
        #expect(reply.session.completedStages == ["common"])
        let submission = try #require(queue.submissions.withLock { $0.first })
        #expect(String(decoding: submission.body, as: UTF8.self) == #"{"answers":{"age":30,"email":"kim.cs@gmail.com","emailConfirm":"kim.cs@gmail.com","like":5,"name":"Kim"}}"#)
        #expect(submission.definitionHash == "common.en")
    }

    @Test func aDeliveryThatFinishesBeforeTheAnswerWaitsIsNotMissed() async throws {
        let m = manager(deliveryWait: .seconds(30))
        // The worker delivers while the manager is suspended reading the queue state.
        queue.duringStateLookup.withLock {
            $0 = { key in
                // As the worker does, from its own task; the answer goes on once the delivery was
                // handed over (kept for the answer about to wait for it).
                let delivery = Task { await m.deliveryFinished(key: key, state: .delivered(response: "1")) }
                await delivery.value
            }
        }
        _ = try await m.start(StartSessionRequest())
        let reply = try await answerCommon(m)
        // A missed delivery would wait out the 30 s and end the session as queued on stage common.
        #expect(reply.session.stage == "1")
        #expect(reply.session.state == "asking")
    }

    @Test func theLastStageDeliveredEndsWithThanks() async throws {
        let m = manager(deliveryWait: .seconds(5))
        deliverImmediately(to: m) { $0.stage == "common" ? "2" : nil }
        _ = try await m.start(StartSessionRequest(typeId: "common", lang: "ko"))
        let afterCommon = try await answerCommon(m, like: "2")
        #expect(afterCommon.session.stage == "2")
        for words in [["yes"], ["2"], ["7"]] {
            #expect(try await m.answer(AnswerRequest(values: words)).accepted)
        }
        let last = try await m.answer(AnswerRequest(values: ["agree"]))
        #expect(last.session.outcome == "thanks")
        #expect(queue.submissions.withLock { $0.map(\.stage) } == ["common", "2"])
    }

    @Test func offlineTheOutcomeIsQueuedAndTheFollowUpIsRecordedLater() async throws {
        let m = manager(deliveryWait: .milliseconds(50))
        _ = try await m.start(StartSessionRequest())
        let reply = try await answerCommon(m)
        #expect(reply.session.outcome == "queued")
        #expect(reply.session.followUp == nil)
        let key = try #require(queue.submissions.withLock { $0.first?.idempotencyKey })
        await m.deliveryFinished(key: key, state: .delivered(response: "1"))
        let view = try await m.view(id: reply.session.id)
        #expect(view.followUp == "1")
        #expect(view.outcome == "queued")
        #expect(journal.events.withLock { $0.last.map { if case .followUpNamed(_, "1", _) = $0 { true } else { false } } } == true)
    }

    @Test func rejectedAnswersAreNotJournaled() async throws {
        let m = manager()
        _ = try await m.start(StartSessionRequest())
        let before = journal.events.withLock { $0.count }
        let reply = try await m.answer(AnswerRequest(values: ["K"]))
        #expect(!reply.accepted)
        #expect(reply.message == "Your name must be 2 to 20 characters long.")
        #expect(reply.session.question?.name == "name")
        #expect(journal.events.withLock { $0.count } == before)
    }

    @Test func aJournalFailureRefusesTheAnswer() async throws {
        let m = manager()
        _ = try await m.start(StartSessionRequest())
        journal.failing.withLock { $0 = true }
        do throws(SessionError) {
            _ = try await m.answer(AnswerRequest(values: ["Kim"]))
            Issue.record("accepted while the journal fails")
        } catch {
            #expect(error.code == .journalUnavailable && ControlError(error).code == "journal_unavailable")
            #expect(error.message.contains("was not accepted"))
        }
        journal.failing.withLock { $0 = false }
        let reply = try await m.answer(AnswerRequest(values: ["Kim"]))
        #expect(reply.accepted)
        #expect(reply.session.question?.name == "email")
    }

    @Test func screeningEndsAsNoTargetWithNothingQueued() async throws {
        let m = manager()
        _ = try await m.start(StartSessionRequest())
        for words in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"]] { _ = try await m.answer(AnswerRequest(values: words)) }
        let reply = try await m.answer(AnswerRequest(values: ["17"]))
        #expect(reply.session.outcome == "no_target")
        #expect(queue.submissions.withLock { $0.isEmpty })
    }

    @Test func aRestartRebuildsSessionsFromTheJournal() async throws {
        let first = manager()
        let started = try await first.start(StartSessionRequest())
        _ = try await first.answer(AnswerRequest(values: ["Kim"]))
        _ = try await first.answer(AnswerRequest(values: ["kim.cs@gmail.com"]))
        let second = manager()
        try await second.restore()
        let view = try await second.view(id: started.id)
        #expect(view.question?.name == "emailConfirm")
        #expect(view.current == 3)
        #expect(try await second.answer(AnswerRequest(values: ["wrong@gmail.com"])).message == "The e-mail addresses do not match.")
        #expect(try await second.answer(AnswerRequest(values: ["kim.cs@gmail.com"])).accepted)
        #expect(await second.restoreProblems.isEmpty)
    }

    @Test func aRestartQueuesACompletedStageThatWasNotQueuedYet() async throws {
        let first = manager()
        _ = try await first.start(StartSessionRequest())
        _ = try await answerCommon(first)
        let key = try #require(queue.submissions.withLock { $0.first?.idempotencyKey })
        // Simulate a crash between journaling the completed stage and queueing it.
        queue.submissions.withLock { $0.removeAll() }
        queue.states.withLock { $0.removeAll() }
        journal.events.withLock { events in
            if case .closed = events.last { events.removeLast() }
        }
        let second = manager()
        try await second.restore()
        #expect(queue.submissions.withLock { $0.map(\.idempotencyKey) } == [key])
    }

    @Test func idleSessionsAreAbandoned() async throws {
        let m = manager()
        let started = try await m.start(StartSessionRequest())
        clock.advance(601)
        #expect(await m.closeIdleSessions() == 1)
        #expect(try await m.view(id: started.id).outcome == "abandoned")
        #expect(await m.openSessions().isEmpty)
        #expect(queue.submissions.withLock { $0.isEmpty })
    }

    @Test func severalOpenSessionsNeedAnID() async throws {
        let m = manager()
        let a = try await m.start(StartSessionRequest())
        let b = try await m.start(StartSessionRequest(lang: "ko"))
        do throws(SessionError) {
            _ = try await m.answer(AnswerRequest(values: ["Kim"]))
            Issue.record("answered without an id")
        } catch {
            #expect(error.code == .severalOpen && ControlError(error).code == "several_sessions")
            #expect(error.message.contains(a.id) && error.message.contains(b.id))
            #expect(error.message.hasSuffix("name one with --session ID"))
        }
        #expect(try await m.answer(AnswerRequest(session: b.id, values: ["김철수"])).accepted)
    }

    @Test func noDefinitionSaysWhatToDo() async throws {
        let m = manager(offline: true)
        do throws(SessionError) {
            _ = try await m.start(StartSessionRequest())
            Issue.record("started offline without a definition")
        } catch {
            #expect(error.code == .definitionUnavailable)
            #expect(ControlError(error).status == 503)
            #expect(ControlError(error).code == "definition_unavailable")
        }
    }

    @Test func aStageWhoseQueueingFailedIsQueuedAgainByHousekeeping() async throws {
        let m = manager(deliveryWait: .seconds(5))
        _ = try await m.start(StartSessionRequest())
        for words in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"], ["30"]] { _ = try await m.answer(AnswerRequest(values: words)) }
        queue.failing.withLock { $0 = true }
        do throws(SessionError) {
            _ = try await m.answer(AnswerRequest(values: ["5"]))
            Issue.record("the stage was reported queued while the queue fails")
        } catch {
            #expect(error.code == .queueFailed && ControlError(error).code == "queue_failed" && ControlError(error).status == 503)
        }
        #expect(await m.settleCompletedStages() == 0, "still failing: nothing queued")
        #expect(queue.submissions.withLock { $0.isEmpty })
        queue.failing.withLock { $0 = false }
        deliverImmediately(to: m) { _ in "1" }
        #expect(await m.settleCompletedStages() == 1)
        let key = try #require(journal.events.withLock { events in
            events.compactMap { if case .stageCompleted(_, _, let key, _, _) = $0 { key } else { nil } }.last
        })
        #expect(queue.submissions.withLock { $0.map(\.idempotencyKey) } == [key], "queued under the key the journal recorded")
        // The delivery moves the session on to the stage the server named.
        var stage = ""
        #expect(await eventually(every: .milliseconds(10)) {
            stage = await m.openSessions().first?.stage ?? ""
            return stage == "1"
        }, "the session is on stage \(stage)")
        #expect(await m.settleCompletedStages() == 0, "queued once")
    }

    @Test func compactionRetiresSessionsClosedLongAgoAndARestartSeesTheSame() async throws {
        let m = manager(deliveryWait: .seconds(5))
        // B ends with thanks; A ends queued (nothing delivers it); C is half-way.
        deliverImmediately(to: m) { _ in nil }
        let b = try await m.start(StartSessionRequest())
        _ = try await answerCommon(m)
        #expect(try await m.view(id: b.id).outcome == "thanks")
        queue.onEnqueue.withLock { $0 = nil }
        let a = try await m.start(StartSessionRequest())
        for words in [["Lee"], ["lee@gmail.com"], ["lee@gmail.com"], ["40"], ["2"]] {
            _ = try await m.answer(AnswerRequest(session: a.id, values: words))
        }
        clock.advance(2 * 86_400)
        let c = try await m.start(StartSessionRequest(lang: "ko"))
        _ = try await m.answer(AnswerRequest(session: c.id, values: ["김철수"]))
        #expect(try await m.view(id: a.id).outcome == "queued", "nothing delivers A's upload")

        let result = try await m.compactJournal(retention: .seconds(86_400))
        #expect(result.retired == 1 && result.kept == 2)
        #expect(journal.events.withLock { $0.allSatisfy { $0.session != UUID(uuidString: b.id) } }, "B's events are gone from the journal")
        await #expect(throws: SessionError.self) { try await m.view(id: b.id) }
        #expect(try await m.view(id: c.id).question?.name == "email")

        // A restart from the compacted journal rebuilds the same sessions.
        let restarted = manager()
        try await restarted.restore()
        #expect(await restarted.restoreProblems.isEmpty)
        #expect(try await restarted.view(id: c.id) == (try await m.view(id: c.id)))
        #expect(try await restarted.view(id: a.id) == (try await m.view(id: a.id)))
        #expect(await restarted.definitionHashesInUse() == ["common.en", "common.ko"])
        // Nothing to retire: the journal is left alone.
        let before = journal.events.withLock { $0 }
        #expect(try await restarted.compactJournal(retention: .seconds(86_400)).retired == 0)
        #expect(journal.events.withLock { $0 } == before)
        // Once A's upload is settled it can go too.
        let key = try #require(queue.submissions.withLock { $0.last?.idempotencyKey })
        queue.states.withLock { $0[key] = .delivered(response: nil) }
        clock.advance(2 * 86_400)
        #expect(try await restarted.compactJournal(retention: .seconds(86_400)).retired == 1)
    }

    @Test func answersDuringCompactionsAreKept() async throws {
        let m = manager(deliveryWait: .milliseconds(20))
        let finished = try await m.start(StartSessionRequest())
        _ = try await m.answer(AnswerRequest(session: finished.id, values: ["Kim"]))
        clock.advance(601)
        #expect(await m.closeIdleSessions() == 1)
        clock.advance(1)
        var ids: [String] = []
        for i in 0..<6 { ids.append(try await m.start(StartSessionRequest(lang: i % 2 == 0 ? "en" : "ko")).id) }
        let steps = [["Park"], ["park@gmail.com"], ["park@gmail.com"]]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids {
                group.addTask { for words in steps { _ = try await m.answer(AnswerRequest(session: id, values: words)) } }
            }
            group.addTask { for _ in 0..<5 { _ = try await m.compactJournal(retention: .seconds(0)); await Task.yield() } }
            try await group.waitForAll()
        }
        let restarted = manager()
        try await restarted.restore()
        for id in ids {
            let live = try await m.view(id: id)
            #expect(live.question?.name == "age")
            #expect(try await restarted.view(id: id) == live)
        }
        await #expect(throws: SessionError.self) { try await restarted.view(id: finished.id) }
    }
}

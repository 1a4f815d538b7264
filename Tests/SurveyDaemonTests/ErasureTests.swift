#if canImport(Glibc)
import Glibc
#endif
import ControlAPI
import Entities
import Foundation
import Logging
import Storage
@testable import SurveyDaemon
import SurveyTesting
import Synchronization
import Testing

/// A state directory with the real session journal and submission queue, the session manager
/// and the erasure on top; dates come from the test's clock.
final class ErasureFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let clock = TestClock()
    let delay: Duration
    let keptSince: Date
    var sessionJournal: Journal
    var submissionQueue: SubmissionQueue
    var manager: SessionManager
    var erasure: AnswerErasure

    /// - Parameter operations: the session journal's system calls (a fault seam).
    init(delay: Duration = .seconds(600), operations: JournalFileOperations = JournalFileOperations(), logger: Logger = Logger(label: "test")) throws {
        directory = try TemporaryDirectory(prefix: "erase")
        self.delay = delay
        keptSince = clock.now()
        let opened = try Self.open(directory.path, clock: clock, delay: delay, keptSince: keptSince, operations: operations, logger: logger)
        sessionJournal = opened.0
        submissionQueue = opened.1
        manager = opened.2
        erasure = opened.3
    }

    static func open(_ path: String, clock: TestClock, delay: Duration, keptSince: Date, operations: JournalFileOperations, logger: Logger) throws -> (Journal, SubmissionQueue, SessionManager, AnswerErasure) {
        var journalOptions = JournalOptions()
        journalOptions.fileOperations = operations
        let journal = try Journal(directory: path + "/sessions", options: journalOptions, logger: logger)
        var queueOptions = SubmissionQueueOptions()
        queueOptions.now = { clock.now() }
        queueOptions.uptime = { clock.elapsed }
        let queue = try SubmissionQueue(directory: path + "/queue", options: queueOptions, logger: logger)
        let stored = StoredSubmissionQueue(queue: queue, wakeup: DeliveryWakeup())
        let manager = SessionManager(
            journal: StoredSessionJournal(journal: journal), definitions: FixtureDefinitions(offline: false), queue: stored,
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(900), deliveryWait: .milliseconds(20)),
            clock: clock.monotonic, now: { clock.now() }, logger: logger)
        let erasure = AnswerErasure(sessions: manager, queue: stored, journals: [journal, queue.journal], delay: delay, keptSince: keptSince, clock: clock.monotonic, logger: logger)
        return (journal, queue, manager, erasure)
    }

    /// Closes the journals, as a stop (or a crash: what was acknowledged is on disk) does, and
    /// opens them again with a new manager that restores its sessions.
    func restart(logger: Logger = Logger(label: "test")) async throws {
        await sessionJournal.close()
        await submissionQueue.close()
        (sessionJournal, submissionQueue, manager, erasure) = try Self.open(directory.path, clock: clock, delay: delay, keptSince: keptSince, operations: JournalFileOperations(), logger: logger)
        try await manager.restore()
    }

    /// Starts a session and answers the first questions of `common` with a respondent's words.
    func respondent(_ name: String, _ email: String, answers: Int = 3) async throws -> String {
        let session = try await manager.start(StartSessionRequest(lang: "en"))
        for words in [[name], [email], [email]].prefix(answers) {
            let reply = try await manager.answer(AnswerRequest(session: session.id, values: words))
            #expect(reply.accepted, "\(words): \(reply.message ?? "")")
        }
        return session.id
    }

    /// Answers the rest of `common` (age and liking) so that the stage is queued.
    func complete(_ id: String) async throws -> AnswerReply {
        _ = try await manager.answer(AnswerRequest(session: id, values: ["30"]))
        return try await manager.answer(AnswerRequest(session: id, values: ["5"]))
    }

    /// Delivers every pending submission, as the delivery worker does, the server naming
    /// `next` as the follow-up stage (none by default).
    func deliverAll(next: String? = nil) async throws {
        for submission in await submissionQueue.pending(limit: 100) {
            try await submissionQueue.markDelivered(submission.id, response: next)
            await manager.deliveryFinished(key: submission.metadata.key, state: .delivered(response: next))
        }
    }

    /// Where the words are found in the state directory.
    func found(_ words: [String]) -> [DiskSearch.Finding] {
        DiskSearch.find(words, under: directory.path)
    }

    func finish() {
        sessionJournal.close(then: {})
        submissionQueue.close(then: {})
        directory.remove()
    }
}

@Suite(.timeLimit(.minutes(5))) struct ErasureTests {
    @Test func anAbandonedRespondentsAnswersAreErasedAfterTheDelayNotBefore() async throws {
        let fixture = try ErasureFixture()
        defer { fixture.finish() }
        let id = try await fixture.respondent("Quillonadele", "quillon.adele@example.com")
        try await fixture.manager.abandon(session: id)
        fixture.clock.advance(599)
        #expect(try await fixture.erasure.erase(all: false).sessions == 0, "599 s of 600")
        var waiting = await fixture.erasure.waiting()
        #expect(waiting.sessions == 1 && waiting.oldest.map { fixture.clock.now().timeIntervalSince($0) } == 599)
        #expect(try await fixture.manager.session(id: id).allAnswers["name"] == .string("Quillonadele"), "still held before the delay")
        fixture.clock.advance(1)
        #expect(try await fixture.erasure.erase(all: false).sessions == 1)
        #expect(fixture.found(["Quillonadele", "quillon.adele@example.com"]).isEmpty, "\(fixture.found(["Quillonadele", "quillon.adele"]))")
        waiting = await fixture.erasure.waiting()
        #expect(waiting.sessions == 0 && waiting.oldest == nil)
        // Not a follow-up: the session is retired with its answers, also for a restart.
        await #expect(throws: SessionError.self) { try await fixture.manager.view(id: id) }
        try await fixture.restart()
        #expect(await fixture.manager.restoreProblems.isEmpty)
        await #expect(throws: SessionError.self) { try await fixture.manager.view(id: id) }
        #expect(await fixture.erasure.waiting().oldest == nil, "nothing waits again after the restart")
    }

    @Test func aFollowUpStaysListedWithoutItsAnswers() async throws {
        let fixture = try ErasureFixture()
        defer { fixture.finish() }
        let id = try await fixture.respondent("Heronmarsh", "heron.marsh@example.com")
        #expect(try await fixture.complete(id).session.outcome == "queued")
        try await fixture.deliverAll(next: "1")
        let listed = try await fixture.manager.view(id: id)
        #expect(listed.followUp == "1")
        fixture.clock.advance(600)
        #expect(try await fixture.erasure.erase(all: false).sessions == 1)
        #expect(fixture.found(["Heronmarsh", "heron.marsh@example.com"]).isEmpty, "\(fixture.found(["Heronmarsh"]))")
        // Shown as before (outcome, progress, follow-up), without an answer, also after a restart.
        #expect(try await fixture.manager.view(id: id) == listed)
        #expect(try await fixture.manager.session(id: id).allAnswers.isEmpty)
        #expect(await fixture.manager.recentFollowUps(limit: 20).map(\.id) == [id])
        try await fixture.restart()
        #expect(await fixture.manager.restoreProblems.isEmpty)
        #expect(try await fixture.manager.view(id: id) == listed)
        #expect(try await fixture.manager.session(id: id).allAnswers.isEmpty)
        #expect(await fixture.erasure.waiting().sessions == 0, "it holds no answers to wait for erasure")
    }

    @Test func purgeErasesDeliveredAndAbandonedAnswersAtOnceAndKeepsTheOpenOnes() async throws {
        let fixture = try ErasureFixture()
        defer { fixture.finish() }
        let delivered = try await fixture.respondent("Brambleoxide", "bramble.oxide@example.com")
        #expect(try await fixture.complete(delivered).session.outcome == "queued")
        try await fixture.deliverAll()
        let abandoned = try await fixture.respondent("Cormorantix", "cormorant.ix@example.com", answers: 2)
        try await fixture.manager.abandon(session: abandoned)
        let open = try await fixture.respondent("Dandelionyx", "dandelion.yx@example.com")
        let waiting = await fixture.erasure.waiting()
        #expect(waiting.sessions == 2 && waiting.queueBodies)

        let report = try await fixture.erasure.erase(all: true)
        #expect(report.sessions == 2 && report.queue != nil)
        let gone = ["Brambleoxide", "bramble.oxide@example.com", "Cormorantix", "cormorant.ix@example.com"]
        #expect(fixture.found(gone).isEmpty, "\(fixture.found(gone))")
        #expect(await fixture.erasure.waiting().oldest == nil)
        await #expect(throws: SessionError.self) { try await fixture.manager.view(id: delivered) }

        // The open respondent goes on after a restart, every answer recovered.
        try await fixture.restart()
        let restored = try await fixture.manager.session(id: open)
        #expect(restored.allAnswers["name"] == .string("Dandelionyx") && restored.allAnswers["emailConfirm"] == .string("dandelion.yx@example.com"))
        #expect(try await fixture.complete(open).session.outcome == "queued")
        let body = try await fixture.submissionQueue.body(of: try #require(await fixture.submissionQueue.pending(limit: 1).first).id)
        #expect(String(decoding: body, as: UTF8.self).contains("Dandelionyx"))
    }

    @Test func aQueuedRespondentsAnswersWaitForTheDelivery() async throws {
        let fixture = try ErasureFixture()
        defer { fixture.finish() }
        let id = try await fixture.respondent("Emberquartz", "ember.quartz@example.com")
        #expect(try await fixture.complete(id).session.outcome == "queued")
        fixture.clock.advance(3600)
        #expect(try await fixture.erasure.erase(all: false).sessions == 0, "its upload is pending")
        #expect(await fixture.erasure.waiting().sessions == 0)
        try await fixture.deliverAll()
        #expect(await fixture.erasure.waiting().sessions == 1)
        fixture.clock.advance(600)
        let report = try await fixture.erasure.erase(all: false)
        #expect(report.sessions == 1 && report.queue != nil, "the delivered body went with the purge")
        #expect(fixture.found(["Emberquartz", "ember.quartz@example.com"]).isEmpty)
    }

    /// A crash after the snapshot is durable and before the old segments are gone: before the
    /// removal checkpoint is written, or after it and before the segments are unlinked.
    @Test(arguments: ["rename", "unlink"]) func aCrashBetweenTheSnapshotAndTheRemovalEndsErasedAfterTheRestart(_ call: String) async throws {
        let failing = Mutex(false)
        let operations = JournalFileOperations(
            rename: { from, to in
                if call == "rename" && failing.withLock({ $0 }) && to.hasSuffix("/checkpoint") { errno = EIO; return -1 }
                return Glibc.rename(from, to)
            },
            unlink: { path in
                if call == "unlink" && failing.withLock({ $0 }) && path.contains("/segment-") { errno = EIO; return -1 }
                return Glibc.unlink(path)
            })
        let fixture = try ErasureFixture(operations: operations)
        defer { fixture.finish() }
        let id = try await fixture.respondent("Fennecolith", "fennec.olith@example.com")
        try await fixture.manager.abandon(session: id)
        failing.withLock { $0 = true }
        await #expect(throws: (any Error).self) { try await fixture.erasure.erase(all: true) }
        let segments = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path + "/sessions").filter { $0.hasSuffix(".log") }
        #expect(segments.count == 2, "the snapshot's segment beside the old one: \(segments)")
        failing.withLock { $0 = false }
        try await fixture.restart()
        #expect(fixture.found(["Fennecolith", "fennec.olith@example.com"]).isEmpty, "\(fixture.found(["Fennecolith"]))")
        await #expect(throws: SessionError.self, "retired by the erasure's snapshot") { try await fixture.manager.view(id: id) }
        #expect(await fixture.manager.restoreProblems.isEmpty)
    }

    @Test func keptCopiesOfDamagedBytesAreErasedAfterTheDelay() async throws {
        let fixture = try ErasureFixture()
        defer { fixture.finish() }
        _ = try await fixture.respondent("Gannetwhorl", "gannet.whorl@example.com")
        // A torn tail after the last record: recovery keeps it aside on the next open.
        let segment = try #require(try fixture.sessionJournal.segments().last?.name)
        // Closed first: a closed segment ends with its last record (an open one is preallocated).
        await fixture.sessionJournal.close()
        let handle = try #require(FileHandle(forWritingAtPath: fixture.directory.path + "/sessions/" + segment))
        handle.seekToEndOfFile()
        handle.write(Data("torn Gannetwhorl record".utf8))
        try handle.close()
        try await fixture.restart()
        #expect(try fixture.sessionJournal.keptCopies().count == 1)
        #expect(await fixture.erasure.waiting().keptCopies == 1)
        fixture.clock.advance(599)
        #expect(try await fixture.erasure.erase(all: false).keptCopies == 0)
        fixture.clock.advance(1)
        #expect(try await fixture.erasure.erase(all: false).keptCopies == 1)
        #expect(try fixture.sessionJournal.keptCopies().isEmpty)
    }

    @Test func answerEventsAreReplacedByThePositionTheyReached() {
        let id = UUID()
        let at = Date(timeIntervalSinceReferenceDate: 0)
        let events: [SessionEvent] = [
            .stageStarted(session: id, stage: "common", language: "en", definitionHash: "h", at: at),
            .answerAccepted(session: id, form: "name", value: .string("x")),
            .answerAccepted(session: id, form: "email", value: .string("y")),
            .wentBack(session: id, form: "email", at: at),
            .answerSkipped(session: id, form: "email"),
            .stageCompleted(session: id, stage: "common", idempotencyKey: id, at: at),
            .closed(session: id, outcome: .abandoned, at: at),
        ]
        #expect(SessionManager.withoutAnswers(events) == [
            events[0], .answersErased(session: id, position: 2), events[5], events[6],
        ])
        #expect(SessionManager.withoutAnswers(Array(events.prefix(3))) == [events[0], .answersErased(session: id, position: 2)])
    }
}

/// The erasure service sleeps on its clock until the oldest waiting answer is due, and sets no
/// timer while no answer waits.
@Suite(.timeLimit(.minutes(5))) struct ErasureServiceTests {
    @Test func theServiceWakesWhenTheOldestAnswerIsDue() async throws {
        let fixture = try ErasureFixture()
        defer { fixture.finish() }
        let id = try await fixture.respondent("Osprey Quill", "osprey.quill@example.com")
        let clock = ManualClock()
        let service = Task { try await ErasureService(erasure: fixture.erasure, clock: clock).run() }
        defer { service.cancel() }
        // Nothing waits: no timer, only a wait for answers to start waiting.
        #expect(await eventually { fixture.manager.erasureWakeup.isWaiting })
        #expect(clock.sleeping == 0)
        // The session is abandoned: its answers are due in 600 s; it sleeps exactly that long.
        try await fixture.manager.abandon(session: id)
        try await clock.waitForSleepers(1)
        #expect(clock.deadlines == [.seconds(600)])
        fixture.clock.advance(590)
        clock.advance(by: .seconds(590))
        #expect(await fixture.manager.sessionsAwaitingErasure() == 1)
        fixture.clock.advance(10)
        clock.advance(by: .seconds(10))
        #expect(await eventually { await fixture.manager.sessionsAwaitingErasure() == 0 })
        #expect(fixture.found(["Osprey Quill", "osprey.quill@example.com"]).isEmpty)
        // Nothing waits any more: no timer again.
        #expect(await eventually { clock.sleeping == 0 && fixture.manager.erasureWakeup.isWaiting })
    }
}

/// `surveyctl status`'s erasure line, and its JSON from a daemon with and without it.
@Suite(.timeLimit(.minutes(5))) struct ErasureStatusTests {
    func status(_ erasure: StatusView.Erasure?) -> StatusView {
        var status = StatusView(
            version: "0.2.0", startedAt: "t", uptimeSeconds: 1, connectivity: .init(state: "online", since: nil),
            queue: .init(pending: 0, inFlight: 0, dead: 0, delivered: 0, oldestPendingAgeSeconds: nil, lastDeliveryAt: nil, nextRetryAt: nil),
            journalProblems: [], sessions: [])
        status.erasure = erasure
        return status
    }

    @Test func theLineSaysWhatWaitsAndForHowLong() throws {
        let waiting = StatusView.Erasure(delaySeconds: 600, oldestWaitingSeconds: 252.5, sessions: 2, queueBodies: true, keptCopies: 1)
        let lines = Rendering.status(status(waiting))
        #expect(lines.contains("erasure: 2 closed sessions' answers, delivered submissions, 1 kept copy of damaged bytes waiting, oldest 4m 12s (erased 10m 0s after they are no longer needed; `surveyctl purge` erases them now)"), "\(lines)")
        let one = StatusView.Erasure(delaySeconds: 600, oldestWaitingSeconds: 3, sessions: 1, queueBodies: false, keptCopies: 0)
        #expect(Rendering.status(status(one)).contains { $0.hasPrefix("erasure: 1 closed session's answers waiting, oldest 3s") })
        let nothing = StatusView.Erasure(delaySeconds: 600, oldestWaitingSeconds: nil, sessions: 0, queueBodies: false, keptCopies: 0)
        #expect(Rendering.status(status(nothing)).contains("erasure: nothing waiting (answers are erased 10m 0s after they are no longer needed)"))
        #expect(!Rendering.status(status(nil)).contains { $0.hasPrefix("erasure") }, "an older daemon says nothing of erasure")
        let decoded = try JSONDecoder().decode(StatusView.self, from: JSONEncoder().encode(status(waiting)))
        #expect(decoded.erasure == waiting)
    }
}

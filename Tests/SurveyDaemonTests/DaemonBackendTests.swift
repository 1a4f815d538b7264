import ControlAPI
import Foundation
import Logging
import Networking
import Storage
import SurveyDaemon
import Synchronization
import Testing

final class MemoryInspector: QueueInspector {
    let dead = Mutex<[DeadSubmission]>([])
    let requeued = Mutex<[SubmissionID]>([])
    let queue: MemoryDeliveryQueue

    init(queue: MemoryDeliveryQueue) { self.queue = queue }

    func counts() async throws -> SubmissionQueueCounts {
        let states = queue.states()
        let pending = queue.entries.withLock { $0.filter { $0.state == .pending } }
        return SubmissionQueueCounts(
            pending: pending.count,
            dead: dead.withLock { $0.count },
            delivered: states.filter { if case .delivered = $0 { true } else { false } }.count,
            oldestPendingAt: pending.first?.submission.metadata.queuedAt
        )
    }
    func deadLetters() async throws -> [DeadSubmission] { dead.withLock { $0 } }
    func requeue(_ id: SubmissionID, key: RequeueKey) async throws -> RequeuedLetter? {
        dead.withLock { list in
            guard let index = list.firstIndex(where: { $0.submission.id == id }) else { return nil }
            requeued.withLock { $0.append(id) }
            let letter = list.remove(at: index)
            return RequeuedLetter(letter: letter, submission: letter.submission)
        }
    }
    func journalProblems() async -> [String] { ["segment 3 kept aside as corrupt; 12 records recovered"] }
}

/// A connectivity verdict that does not change, reached at 2027-01-15T08:00:00Z.
struct FixedConnectivity: ConnectivityObserver {
    let state: ConnectivityStatus.State
    var status: ConnectivityStatus {
        get async { ConnectivityStatus(state: state, since: Date(timeIntervalSince1970: 1_800_000_000)) }
    }
}

@Suite(.timeLimit(.minutes(5))) struct DaemonBackendTests {
    @Test func statusFlushAndDeadLetters() async throws {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("common", at: 1_799_999_940)
        let inspector = MemoryInspector(queue: queue)
        let key = UUID()
        let submission = QueuedSubmission(id: SubmissionID(7), metadata: SubmissionMetadata(key: key, stage: "1", language: "ko", definitionHash: "h", queuedAt: Date(timeIntervalSince1970: 1_799_999_000)))
        inspector.dead.withLock { $0 = [DeadSubmission(submission: submission, reason: "isSuccess: false")] }
        let uploader = ScriptedUploader()
        uploader.offline.withLock { $0 = true }
        let worker = DeliveryWorker(queue: queue, uploader: uploader, settings: .init(maxInFlight: 1, backoff: { _, _ in .seconds(1) }, offlinePause: .seconds(3600)), logger: Logger(label: "t")) { _, _ in }
        let manager = SessionManager(
            journal: MemoryJournal(), definitions: FixtureDefinitions(offline: false), queue: RecordingQueue(),
            settings: .init(defaultLanguage: "ko", idleTimeout: .seconds(60), deliveryWait: .milliseconds(10)), logger: Logger(label: "t")
        )
        let started = Date(timeIntervalSince1970: 1_799_996_400)
        let backend = DaemonBackend(version: "0.1.0", startedAt: started, sessions: manager, worker: worker, inspector: inspector, connectivity: FixedConnectivity(state: .offline), now: { Date(timeIntervalSince1970: 1_800_000_000) })
        _ = try await backend.startSession(StartSessionRequest())

        let status = try await backend.status()
        #expect(status.version == "0.1.0")
        #expect(status.uptimeSeconds == 3600)
        #expect(status.connectivity.state == "offline")
        #expect(status.queue.pending == 1)
        #expect(status.queue.dead == 1)
        #expect(status.queue.oldestPendingAgeSeconds == 60)
        #expect(status.journalProblems == ["segment 3 kept aside as corrupt; 12 records recovered"])
        #expect(status.sessions.count == 1)
        #expect(Rendering.status(status).contains("  dead letters need attention: `surveyctl dead` lists them, `surveyctl requeue ID` retries one"))

        let flush = try await backend.flush(FlushRequest())
        #expect(flush == FlushReply(pending: 1, dead: 1, drained: false, connectivity: "offline"))

        let letters = try await backend.deadLetters()
        #expect(letters.map(\.idempotencyKey) == [key.uuidString.lowercased()])
        let requeued = try await backend.requeue(deadLetter: "7")
        #expect(requeued.id == "7")
        do {
            _ = try await backend.requeue(deadLetter: "7")
            Issue.record("requeued twice")
        } catch let error as ControlError {
            #expect(error.code == "no_such_dead_letter")
        }
    }

    /// A session that ended `queued` and whose upload was delivered later with a follow-up stage
    /// is shown by status with that stage, though it is closed.
    @Test func statusShowsTheFollowUpOfAQueuedSessionDeliveredLater() async throws {
        let clock = TestClock()
        let queue = RecordingQueue()
        let manager = SessionManager(
            journal: MemoryJournal(), definitions: FixtureDefinitions(offline: false), queue: queue,
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .milliseconds(10)),
            now: { clock.now() }, logger: Logger(label: "t")
        )
        let worker = DeliveryWorker(queue: MemoryDeliveryQueue(), uploader: ScriptedUploader(), settings: .init(maxInFlight: 1, backoff: { _, _ in .seconds(1) }, offlinePause: .seconds(3600)), logger: Logger(label: "t")) { _, _ in }
        let backend = DaemonBackend(version: "0.1.0", startedAt: clock.now(), sessions: manager, worker: worker, inspector: MemoryInspector(queue: MemoryDeliveryQueue()), connectivity: FixedConnectivity(state: .online), now: { clock.now() })

        _ = try await backend.startSession(StartSessionRequest())
        var reply: AnswerReply?
        for words in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"], ["30"], ["5"]] {
            reply = try await backend.answer(AnswerRequest(values: words))
        }
        let queued = try #require(reply?.session)
        #expect(queued.outcome == "queued")
        let key = try #require(queue.submissions.withLock { $0.first?.idempotencyKey })
        // Not delivered yet: nothing to show.
        #expect(!Rendering.status(try await backend.status()).contains { $0.hasPrefix("follow-ups") })

        clock.advance(60)
        await manager.deliveryFinished(key: key, state: .delivered(response: "1"))
        let lines = Rendering.status(try await backend.status())
        #expect(lines.contains("sessions: 0 open"), "\(lines)")
        #expect(lines.contains("follow-ups: 1 (queued sessions delivered later)"), "\(lines)")
        #expect(lines.contains("  \(queued.id)  stage common (en)  closed \(queued.lastActivity), delivered later: the server named stage 1 next"), "\(lines)")
        let status = try await backend.status()
        #expect(status.sessions.isEmpty)
        #expect(status.followUps.map(\.id) == [queued.id])
        #expect(status.followUps.first?.followUp == "1" && status.followUps.first?.outcome == "queued")
    }

    /// Status lists at most 20 follow-ups, the most recently closed first; a queued session whose
    /// upload is still pending, or was delivered without a follow-up, is not one.
    @Test func followUpsAreBoundedNewestFirst() async throws {
        let clock = TestClock()
        let queue = RecordingQueue()
        let manager = SessionManager(
            journal: MemoryJournal(), definitions: FixtureDefinitions(offline: false), queue: queue,
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .milliseconds(1)),
            now: { clock.now() }, logger: Logger(label: "t")
        )
        var ids: [String] = []
        for _ in 0..<(StatusView.followUpLimit + 4) {
            _ = try await manager.start(StartSessionRequest())
            var reply: AnswerReply?
            for words in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"], ["30"], ["5"]] {
                reply = try await manager.answer(AnswerRequest(values: words))
            }
            ids.append(try #require(reply?.session.id))
            clock.advance(10)
        }
        let keys = queue.submissions.withLock { $0.map(\.idempotencyKey) }
        #expect(keys.count == ids.count)
        // The first stays pending and the second is delivered without a follow-up.
        await manager.deliveryFinished(key: keys[1], state: .delivered(response: nil))
        for key in keys.dropFirst(2) {
            await manager.deliveryFinished(key: key, state: .delivered(response: "1"))
        }
        let followUps = await manager.recentFollowUps(limit: StatusView.followUpLimit)
        #expect(followUps.map(\.id) == Array(ids.dropFirst(2).reversed().prefix(StatusView.followUpLimit)))
        #expect(await manager.recentFollowUps(limit: 0).isEmpty)
    }

    /// A journal that cannot write shows in status with its cause and since when, in place of
    /// `journal: ok`; the JSON carries the same.
    @Test func aFailedJournalShowsInStatus() throws {
        let failed = StatusView.Journal(name: "sessions", state: "failed", call: "write", cause: "ENOSPC", causeText: "No space left on device", since: "2026-11-22T10:00:00Z")
        var status = StatusView(
            version: "0.2.0", startedAt: "t", uptimeSeconds: 1, connectivity: .init(state: "online", since: nil),
            queue: .init(pending: 0, inFlight: 0, dead: 0, delivered: 0, oldestPendingAgeSeconds: nil, lastDeliveryAt: nil, nextRetryAt: nil),
            journalProblems: ["corruptSegment in state/sessions/segment-1.log"], sessions: [],
            journals: [failed, StatusView.Journal(name: "queue", state: "ok")])
        #expect(status.journalFailed)
        let lines = Rendering.status(status)
        #expect(!lines.contains("journal: ok"))
        #expect(lines.contains("journal: FAILED: answers are refused while it cannot write"), "\(lines)")
        #expect(lines.contains { $0.contains("sessions: write failed with ENOSPC (No space left on device) since 2026-11-22T10:00:00Z") }, "\(lines)")
        #expect(lines.contains("  - corruptSegment in state/sessions/segment-1.log"))
        let decoded = try JSONDecoder().decode(StatusView.self, from: JSONEncoder().encode(status))
        #expect(decoded.journals == status.journals)
        status.journals = [StatusView.Journal(name: "sessions", state: "ok"), StatusView.Journal(name: "queue", state: "ok")]
        status.journalProblems = []
        #expect(!status.journalFailed)
        #expect(Rendering.status(status).contains("journal: ok"))
    }

    /// A status reply from a daemon without `followUps` still decodes, with none.
    @Test func statusWithoutFollowUpsDecodes() throws {
        let json = #"{"version":"0.2.0","startedAt":"t","uptimeSeconds":1,"connectivity":{"state":"online"},"queue":{"pending":0,"inFlight":0,"dead":0,"delivered":0},"journalProblems":[],"sessions":[]}"#
        let status = try JSONDecoder().decode(StatusView.self, from: Data(json.utf8))
        #expect(status.followUps.isEmpty)
        #expect(status.definitionProblems.isEmpty)
        #expect(status.journals.isEmpty && !status.journalFailed)
        #expect(!Rendering.status(status).contains { $0.hasPrefix("follow-ups") })
        #expect(!Rendering.status(status).contains { $0.hasPrefix("definitions") })
    }

    /// Stages whose newest questionnaire has errors are named by status, for the operator to
    /// pass on to the survey's owner.
    @Test func statusNamesTheStagesWhoseQuestionnaireHasErrors() async throws {
        let problem = DefinitionProblem(stage: "1", language: "ko", error: "questionnaire \"1\" has 1 definition error", since: Date(timeIntervalSince1970: 1_800_000_000))
        let manager = SessionManager(
            journal: MemoryJournal(), definitions: ReportingDefinitions(reported: [problem]), queue: RecordingQueue(),
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .milliseconds(1)), logger: Logger(label: "t")
        )
        let worker = DeliveryWorker(queue: MemoryDeliveryQueue(), uploader: ScriptedUploader(), settings: .init(maxInFlight: 1, backoff: { _, _ in .seconds(1) }, offlinePause: .seconds(3600)), logger: Logger(label: "t")) { _, _ in }
        let backend = DaemonBackend(version: "0.1.0", startedAt: Date(), sessions: manager, worker: worker, inspector: MemoryInspector(queue: MemoryDeliveryQueue()), connectivity: FixedConnectivity(state: .online))
        let status = try await backend.status()
        #expect(status.definitionProblems == [StatusView.DefinitionProblem(stage: "1", lang: "ko", error: problem.error, since: "2027-01-15T08:00:00Z")])
        let decoded = try JSONDecoder().decode(StatusView.self, from: try JSONEncoder().encode(status))
        #expect(decoded.definitionProblems == status.definitionProblems)
        let lines = Rendering.status(status)
        #expect(lines.contains("definitions: the survey server sends questionnaires with errors for 1 stage; sessions start from the last good copy. Tell the survey's owner:"), "\(lines)")
        #expect(lines.contains("  - stage 1 (ko) since 2027-01-15T08:00:00Z: questionnaire \"1\" has 1 definition error"), "\(lines)")
    }
}

/// The fixture questionnaires, with definition problems to report.
struct ReportingDefinitions: DefinitionSource {
    let reported: [DefinitionProblem]

    func definition(stage: String, language: String) async throws -> LoadedDefinition {
        try await FixtureDefinitions(offline: false).definition(stage: stage, language: language)
    }

    func cachedDefinition(hash: String, stage: String) async throws -> LoadedDefinition? {
        try await FixtureDefinitions(offline: false).cachedDefinition(hash: hash, stage: stage)
    }

    func problems() async -> [DefinitionProblem] { reported }
}

import ControlAPI
import Entities
import Foundation
import Logging
import Networking
import NIOCore
import ServiceLifecycle
import Storage
@testable import SurveyDaemon
import SurveyTesting
import Synchronization
import Testing

/// Dead letters in the daemon: how an upload's failure is classified, what the worker records,
/// and requeues through the Storage queue (strict ids, the key each one is sent with).
// `waitFor` waits for an event, not a time: the limit only ends a test that hangs.
@Suite(.timeLimit(.minutes(2))) struct DeadLetterTests {
    @Test(arguments: [
        (NetworkError(.rejectedAnswers, "isSuccess: false", status: 200), "rejected"),
        (NetworkError(.rejectedRequest, "400", status: 400), "rejected"),
        (NetworkError(.rejectedRequest, "422", status: 422), "rejected"),
        (NetworkError(.rejectedRequest, "not a stage name"), "permanent"),  // refused before sending
        (NetworkError(.unauthorized, "401", status: 401), "unauthorized"),
        (NetworkError(.unauthorized, "403", status: 403), "unauthorized"),
        (NetworkError(.undecodableResponse, "not JSON", status: 200), "unknown"),
        (NetworkError(.notTheServer, "200 text/html", status: 200), "notTheServer"),
        // A portal's 403 page is no refusal of the token; a clock not set or an expired
        // certificate decides nothing either.
        (NetworkError(.notTheServer, "403 text/html", status: 403), "notTheServer"),
        (NetworkError(.clockNotSet, "certificate not valid yet"), "certificate"),
        (NetworkError(.certificateExpired, "certificate expired"), "certificate"),
        (NetworkError(.timeout, "timed out"), "transient"),
        (NetworkError(.serverBusy, "502", status: 502), "transient"),
        (NetworkError(.serverBusy, "503", status: 503), "overloaded"),
        (NetworkError(.serverBusy, "429", status: 429, retryAfter: .seconds(7)), "overloaded"),
        (NetworkError(.offline, "offline"), "offline"),
    ])
    func uploadFailuresAreClassified(error: NetworkError, expected: String) {
        let name = switch ClientUploader.outcome(error) {
        case .rejected: "rejected"
        case .permanent: "permanent"
        case .transient: "transient"
        case .overloaded: "overloaded"
        case .offline: "offline"
        case .delivered: "delivered"
        case .unauthorized: "unauthorized"
        case .unknown: "unknown"
        case .notTheServer: "notTheServer"
        case .certificate: "certificate"
        }
        #expect(name == expected, "\(error)")
    }

    /// Rejected and unknown outcomes reach the queue; a submission sent under a requeue's new key
    /// is reported to the sessions under the key it was queued with.
    @Test func theWorkerMarksOutcomesAndReportsTheQueuedKey() async throws {
        let queue = MemoryDeliveryQueue()
        let rejected = queue.add("rejected", at: 1)
        let garbled = queue.add("garbled", at: 2)
        let queuedKey = UUID()
        let sentKey = UUID()
        let metadata = SubmissionMetadata(key: queuedKey, stage: "renewed", language: "en", definitionHash: "h", queuedAt: Date(timeIntervalSince1970: 3))
        let renewed = QueuedSubmission(id: SubmissionID(3), metadata: metadata, requeueKey: sentKey)
        queue.entries.withLock { $0.append(MemoryDeliveryQueue.Entry(submission: renewed, body: ByteBuffer(string: "{}"), state: .pending)) }
        let uploader = ScriptedUploader([
            "rejected": [.rejected(reason: "isSuccess: false")],
            "garbled": [.permanent(reason: "undecodable reply")],
            "renewed": [.delivered(nextTypeId: "1")],
        ])
        let log = FinishedLog()
        let worker = DeliveryWorker(
            queue: queue, uploader: uploader,
            settings: .init(maxInFlight: 2, backoff: { _, _ in .milliseconds(20) }, offlinePause: .seconds(3600)),
            logger: Logger(label: "test")
        ) { key, state in log.append(key, state) }
        let group = ServiceGroup(services: [worker], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        let task = Task { try await group.run() }
        await log.waitFor(3)
        await group.triggerGracefulShutdown()
        try await task.value
        #expect(queue.outcomes.withLock { $0 } == [rejected.id: .rejected, garbled.id: .unknown])
        #expect(uploader.attempts.withLock { $0.filter { $0.stage == "renewed" }.map(\.key) } == [sentKey])
        let finished = log.items.withLock { $0 }
        #expect(finished.contains { $0.0 == queuedKey && $0.1 == .delivered(response: "1") })
        #expect(!finished.contains { $0.0 == sentKey })
    }

    /// Through the Storage queue and the backend, as the control API requeues: ids are read
    /// strictly; a rejected letter is requeued with a new key, an unknown one keeps its key, and
    /// `keep`/`new` override. Each requeue wakes the worker once.
    @Test func requeueThroughTheStoredQueue() async throws {
        let dir = try TemporaryDirectory(prefix: "dl")
        defer { dir.remove() }
        let storage = try SubmissionQueue(directory: dir.path, logger: Logger(label: "test"))
        defer { storage.close(then: {}) }
        let wakeup = DeliveryWakeup()
        let queue = StoredSubmissionQueue(queue: storage, wakeup: wakeup)
        let backend = Self.backend(queue: queue, wakeup: wakeup)
        var keys: [UUID] = []
        for i in 1...5 {
            keys.append(UUID())
            try await queue.enqueue(SubmissionRequest(session: UUID(), stage: "common", language: "en", body: Data("{\"n\":\(i)}".utf8), idempotencyKey: keys[i - 1], definitionHash: "h", queuedAt: Date()))
        }
        let pending = try await queue.pending(limit: 10, excluding: [])
        #expect(pending.map(\.id.description) == ["1", "2", "3", "4", "5"])
        try await queue.markDead(pending[4].id, reason: "isSuccess: false", outcome: .rejected)
        try await queue.markDead(pending[1].id, reason: "undecodable reply", outcome: .unknown)
        #expect(try await queue.deadLetters().map(\.outcome) == [.unknown, .rejected])

        for bad in ["+5", "05", " 5", "5 ", "", "5\u{0}x", "5.0", "0x5", "\u{FF15}", "18446744073709551621", "99999999999999999999999", "-5", "5\n"] {
            #expect(SubmissionID(bad) == nil, "\(bad.debugDescription)")
            await #expect(throws: Self.noDeadLetter(bad), "\(bad.debugDescription)") { try await backend.requeue(deadLetter: bad) }
        }
        #expect(try await queue.deadLetters().count == 2)

        let wakes = wakeup.wakes
        let renewed = try await backend.requeue(deadLetter: "5")
        #expect(wakeup.wakes == wakes + 1, "one requeue, one wake")
        #expect(renewed.outcome == "rejected" && renewed.previousIdempotencyKey == keys[4].text(uppercase: false) && renewed.idempotencyKey != keys[4].text(uppercase: false))
        let kept = try await backend.requeue(deadLetter: "2")
        #expect(kept.previousIdempotencyKey == nil && kept.idempotencyKey == keys[1].text(uppercase: false))
        #expect(wakeup.wakes == wakes + 2)
        let again = try await queue.pending(limit: 10, excluding: [])
        #expect(again.map(\.idempotencyKey) == Array(keys.dropLast()) + [try #require(UUID(canonicalText: renewed.idempotencyKey))])
        #expect(again.map(\.metadata.key) == keys)
        // The session still finds its submission under the key it queued.
        #expect(try await queue.state(of: keys[4]) == .pending)

        // Overrides: keep on a rejected letter (today's behaviour), new on an unknown one.
        try await queue.markDead(again[4].id, reason: "isSuccess: false", outcome: .rejected)
        try await queue.markDead(again[1].id, reason: "undecodable reply", outcome: .unknown)
        let keptRejected = try await backend.requeue(deadLetter: "5", RequeueRequest(key: .keep))
        #expect(keptRejected.idempotencyKey == renewed.idempotencyKey && keptRejected.previousIdempotencyKey == nil)
        let renewedUnknown = try await backend.requeue(deadLetter: "2", RequeueRequest(key: .new))
        #expect(renewedUnknown.idempotencyKey != keys[1].text(uppercase: false) && renewedUnknown.previousIdempotencyKey == keys[1].text(uppercase: false))
        await #expect(throws: Self.noDeadLetter("2"), "no longer dead") { try await backend.requeue(deadLetter: "2") }
    }

    static func noDeadLetter(_ id: String) -> ControlError {
        ControlError.notFound("no_such_dead_letter", "no dead letter \(id); `surveyctl dead` lists them")
    }

    /// A backend over `queue` whose worker (not running) shares `wakeup` with the queue.
    static func backend(queue: StoredSubmissionQueue, wakeup: DeliveryWakeup) -> DaemonBackend {
        let worker = DeliveryWorker(
            queue: MemoryDeliveryQueue(), uploader: ScriptedUploader(), settings: .init(maxInFlight: 1, backoff: { _, _ in .seconds(1) }, offlinePause: .seconds(3600)),
            wakeup: wakeup, logger: Logger(label: "test")) { _, _ in }
        let manager = SessionManager(
            journal: MemoryJournal(), definitions: FixtureDefinitions(offline: false), queue: RecordingQueue(),
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .milliseconds(1)), logger: Logger(label: "test"))
        var backend = DaemonBackend(version: "0", startedAt: Date(), sessions: manager, worker: worker, inspector: queue, connectivity: FixedConnectivity(state: .online))
        backend.queueAdministration = queue
        return backend
    }

    @Test func theBackendShowsOutcomeAndKeys() async throws {
        let key = UUID()
        let previous = UUID()
        let submission = QueuedSubmission(id: SubmissionID(7), metadata: SubmissionMetadata(key: previous, stage: "1", language: "ko", definitionHash: "h", queuedAt: Date(timeIntervalSince1970: 1_800_000_000)))
        let letter = DeadSubmission(submission: submission, reason: "isSuccess: false", outcome: .rejected)
        var requeued = submission
        requeued.requeueKey = key
        let view = DaemonBackend.view(RequeuedLetter(letter: letter, submission: requeued))
        #expect(view.id == "7" && view.outcome == "rejected" && view.idempotencyKey == key.text(uppercase: false) && view.previousIdempotencyKey == previous.text(uppercase: false))
        let other = QueuedSubmission(id: SubmissionID(8), metadata: SubmissionMetadata(key: key, stage: "1", language: "ko", definitionHash: "h", queuedAt: Date()))
        let json = String(decoding: try JSONEncoder().encode(DaemonBackend.view(DeadSubmission(submission: other, reason: "r"))), as: UTF8.self)
        #expect(json.contains(#""outcome":"unknown""#) && !json.contains("previousIdempotencyKey"), "\(json)")
        #expect(Rendering.deadLetter(view).contains("rejected by the server: requeue sends it with a new key"))
        #expect(Rendering.requeued(view) == "requeued 7 (stage 1) with a new idempotency key \(key.text(uppercase: false)) (it was \(previous.text(uppercase: false)))")
        var unknown = view
        unknown.outcome = "unknown"
        unknown.previousIdempotencyKey = nil
        #expect(Rendering.deadLetter(unknown).contains("outcome unknown (the server may hold it under its key): requeue keeps the key"))
        #expect(Rendering.requeued(unknown) == "requeued 7 (stage 1); it keeps its idempotency key \(key.text(uppercase: false))")
    }
}

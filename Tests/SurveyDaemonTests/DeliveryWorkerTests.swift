import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Storage
import SurveyDaemon
import Synchronization
import SurveyTesting
import Testing

/// A FIFO queue in memory, in the Storage queue's types.
final class MemoryDeliveryQueue: DeliveryQueue {
    struct Entry { var submission: QueuedSubmission; var body: ByteBuffer; var state: SubmissionState }
    let entries = Mutex<[Entry]>([])
    /// The outcome each dead letter was marked with, by id.
    let outcomes = Mutex<[SubmissionID: DeadOutcome]>([:])

    /// Queues a submission whose id is `seconds`, queued at `seconds` past the epoch.
    func add(_ stage: String, key: UUID = UUID(), at seconds: TimeInterval) -> QueuedSubmission {
        let metadata = SubmissionMetadata(key: key, stage: stage, language: "en", definitionHash: "h", queuedAt: Date(timeIntervalSince1970: seconds))
        let s = QueuedSubmission(id: SubmissionID(UInt64(seconds)), metadata: metadata)
        entries.withLock { $0.append(Entry(submission: s, body: ByteBuffer(string: #"{"answers":{"n":\#(Int(seconds))}}"#), state: .pending)) }
        return s
    }

    func pending(limit: Int, excluding: Set<SubmissionID>) async throws -> [QueuedSubmission] {
        entries.withLock { $0.filter { $0.state == .pending && !excluding.contains($0.submission.id) }.prefix(limit).map(\.submission) }
    }
    /// The ids each ``bodies(of:)`` call asked for, in order.
    let bodyReads = Mutex<[[SubmissionID]]>([])
    /// Submissions whose body cannot be read.
    let unreadable = Mutex<Set<SubmissionID>>([])
    struct Unreadable: Error {}

    func body(of id: SubmissionID) async throws -> ByteBuffer {
        if unreadable.withLock({ $0.contains(id) }) { throw Unreadable() }
        return entries.withLock { $0.first { $0.submission.id == id }!.body }
    }
    func bodies(of ids: [SubmissionID]) async -> [Result<StoredUpload, any Error>] {
        bodyReads.withLock { $0.append(ids) }
        return await bodiesOneByOne(ids).map { $0.map { StoredUpload(body: $0) } }
    }
    /// Runs as a delivery is recorded, e.g. to let time pass while the queue's journal syncs.
    let whileRecording = Mutex<(@Sendable () -> Void)?>(nil)
    func markDelivered(_ id: SubmissionID, nextTypeId: String?) async throws {
        whileRecording.withLock { $0 }?()
        set(id, .delivered(response: nextTypeId))
    }
    func markDead(_ id: SubmissionID, reason: String, outcome: DeadOutcome) async throws {
        set(id, .dead(reason: reason))
        outcomes.withLock { $0[id] = outcome }
    }
    func set(_ id: SubmissionID, _ state: SubmissionState) {
        entries.withLock { list in
            for i in list.indices where list[i].submission.id == id { list[i].state = state }
        }
    }
    func states() -> [SubmissionState] { entries.withLock { $0.map(\.state) } }
}

/// An uploader whose answers the test scripts, recording every attempt.
final class ScriptedUploader: AnswerUploader {
    let script: Mutex<[String: [UploadOutcome]]>
    let attempts = Mutex<[(stage: String, key: UUID)]>([])
    let inFlight = Mutex((now: 0, max: 0))
    let offline = Mutex(false)
    let offlineChecks = Mutex(0)

    init(_ script: [String: [UploadOutcome]] = [:]) { self.script = Mutex(script) }

    func upload(stage: String, language: String, body: ByteBuffer, idempotencyKey: UUID) async -> UploadOutcome {
        if offline.withLock({ $0 }) {
            offlineChecks.withLock { $0 += 1 }
            return .offline
        }
        inFlight.withLock { $0.now += 1; $0.max = max($0.max, $0.now) }
        try? await Task.sleep(for: .milliseconds(5))
        inFlight.withLock { $0.now -= 1 }
        attempts.withLock { $0.append((stage, idempotencyKey)) }
        return script.withLock { script in
            guard var list = script[stage], !list.isEmpty else { return .delivered(nextTypeId: nil) }
            let next = list.removeFirst()
            script[stage] = list
            return next
        }
    }
}

/// What the worker said it finished (delivered or dead), in order; a test can wait for a count.
final class FinishedLog: Sendable {
    let items = Mutex<[(UUID, SubmissionState)]>([])
    /// Tests waiting for a count, with the count they wait for. Appends and waits both go through
    /// this lock, so no append slips between a wait's check and its parking.
    private let waiters = Mutex<[(count: Int, waiter: CheckedContinuation<Void, Never>)]>([])

    /// The worker's `onFinished`.
    func append(_ key: UUID, _ state: SubmissionState) {
        let ready = waiters.withLock { waiters in
            let count = items.withLock { $0.append((key, state)); return $0.count }
            let ready = waiters.filter { $0.count <= count }.map(\.waiter)
            waiters.removeAll { $0.count <= count }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once `count` submissions are finished: an event, not a timeout, so a slow machine
    /// makes the test slower, never wrong (the suite's time limit bounds a test that hangs).
    func waitFor(_ count: Int) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = waiters.withLock { waiters in
                if items.withLock({ $0.count }) >= count { return true }
                waiters.append((count, waiter))
                return false
            }
            if now { waiter.resume() }
        }
    }
}

// The waits below are for events (a count of finished submissions, a sleep on the manual clock),
// not for time: the limit only ends a test that hangs.
@Suite(.timeLimit(.minutes(2))) struct DeliveryWorkerTests {
    func worker(
        _ queue: MemoryDeliveryQueue, _ uploader: ScriptedUploader, maxInFlight: Int = 2, batchSize: Int = 4096, log: FinishedLog = FinishedLog(),
        clock: any Clock<Duration> = ContinuousClock()
    ) -> DeliveryWorker {
        DeliveryWorker(
            queue: queue, uploader: uploader,
            settings: .init(maxInFlight: maxInFlight, backoff: { attempt, retryAfter in retryAfter ?? .milliseconds(20 * attempt) }, offlinePause: .seconds(3600), batchSize: batchSize),
            clock: clock, logger: Logger(label: "test")
        ) { key, state in log.append(key, state) }
    }

    /// Runs the worker until `log` holds `finished` submissions, then shuts it down gracefully.
    /// Waiting for that event, not for a time, matters: a shutdown after a fixed wait on a loaded
    /// machine stops the worker half-way through the queue and the test sees a partial count.
    func run(_ worker: DeliveryWorker, until log: FinishedLog, finished: Int) async throws {
        let group = ServiceGroup(services: [worker], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        let task = Task { try await group.run() }
        await log.waitFor(finished)
        await group.triggerGracefulShutdown()
        try await task.value
    }

    @Test func deliversOldestFirstWithBoundedConcurrency() async throws {
        let queue = MemoryDeliveryQueue()
        let submissions = (1...7).map { queue.add("s\($0)", at: TimeInterval($0)) }
        let uploader = ScriptedUploader()
        let log = FinishedLog()
        try await run(worker(queue, uploader, maxInFlight: 3, log: log), until: log, finished: 7)
        #expect(queue.states() == Array(repeating: .delivered(response: nil), count: 7))
        #expect(uploader.inFlight.withLock { $0.max } <= 3)
        #expect(uploader.attempts.withLock { $0.count } == 7)
        #expect(Set(log.items.withLock { $0.map(\.0) }) == Set(submissions.map(\.idempotencyKey)))
        // Batches of three start in queue order.
        #expect(Array(uploader.attempts.withLock { $0.map(\.stage) }.prefix(3)).sorted() == ["s1", "s2", "s3"])
    }

    /// Bodies are read from the queue a chunk at a time as uploads start, not one call each; a
    /// body that cannot be read makes its own submission a dead letter and no other.
    @Test func bodiesAreReadAChunkAtATime() async throws {
        let queue = MemoryDeliveryQueue()
        let submissions = (1...70).map { queue.add("s\($0)", at: TimeInterval($0)) }
        queue.unreadable.withLock { $0 = [submissions[40].id] }
        let uploader = ScriptedUploader()
        let log = FinishedLog()
        try await run(worker(queue, uploader, maxInFlight: 4, log: log), until: log, finished: 70)
        let ids: [SubmissionID] = submissions.map(\.id)
        let chunks: [[SubmissionID]] = [Array(ids[0..<32]), Array(ids[32..<64]), Array(ids[64...])]
        let reads: [[SubmissionID]] = queue.bodyReads.withLock { $0 }
        #expect(reads == chunks)
        var expected = Array(repeating: SubmissionState.delivered(response: nil), count: 70)
        expected[40] = .dead(reason: "the queued body cannot be read: Unreadable()")
        #expect(queue.states() == expected)
        #expect(uploader.attempts.withLock { $0.count } == 69)
    }

    /// More pending than one round reads: the worker must not go to sleep after the first batch.
    @Test func aQueueLongerThanOneBatchIsDeliveredWhole() async throws {
        let queue = MemoryDeliveryQueue()
        for i in 1...25 { _ = queue.add("s\(i)", at: TimeInterval(i)) }
        let uploader = ScriptedUploader()
        let log = FinishedLog()
        try await run(worker(queue, uploader, maxInFlight: 4, batchSize: 10, log: log), until: log, finished: 25)
        #expect(queue.states() == Array(repeating: .delivered(response: nil), count: 25))
        #expect(uploader.attempts.withLock { $0.count } == 25)
    }

    /// A full batch of submissions waiting out a long backoff must not hide the ones behind it.
    @Test func submissionsInBackoffDoNotBlockTheOnesBehindThem() async throws {
        let queue = MemoryDeliveryQueue()
        for i in 1...4 { _ = queue.add("stuck", at: TimeInterval(i)) }
        for i in 5...7 { _ = queue.add("fine\(i)", at: TimeInterval(i)) }
        let uploader = ScriptedUploader(["stuck": Array(repeating: .transient(reason: "503", retryAfter: .seconds(3600)), count: 4)])
        let log = FinishedLog()
        try await run(worker(queue, uploader, maxInFlight: 2, batchSize: 4, log: log), until: log, finished: 3)
        #expect(Array(queue.states().suffix(3)) == Array(repeating: .delivered(response: nil), count: 3))
        #expect(Array(queue.states().prefix(4)) == Array(repeating: .pending, count: 4))
        #expect(uploader.attempts.withLock { $0.filter { $0.stage == "stuck" }.count } == 4, "each stuck one tried once, then left to its backoff")
    }

    @Test func transientFailuresRetryWithTheSameKeyAndPermanentOnesGoDead() async throws {
        let queue = MemoryDeliveryQueue()
        let flaky = queue.add("flaky", at: 1)
        _ = queue.add("refused", at: 2)
        let uploader = ScriptedUploader([
            "flaky": [.transient(reason: "503", retryAfter: nil), .transient(reason: "timeout", retryAfter: .milliseconds(10)), .delivered(nextTypeId: "1")],
            "refused": [.permanent(reason: "the server rejected the answers (isSuccess: false)")],
        ])
        let log = FinishedLog()
        try await run(worker(queue, uploader, log: log), until: log, finished: 2)
        #expect(queue.states() == [.delivered(response: "1"), .dead(reason: "the server rejected the answers (isSuccess: false)")])
        let flakyKeys = uploader.attempts.withLock { $0.filter { $0.stage == "flaky" }.map(\.key) }
        #expect(flakyKeys == [flaky.idempotencyKey, flaky.idempotencyKey, flaky.idempotencyKey])
        #expect(uploader.attempts.withLock { $0.filter { $0.stage == "refused" }.count } == 1)
        #expect(log.items.withLock { $0.contains { $0.0 == flaky.idempotencyKey && $0.1 == .delivered(response: "1") } })
    }

    @Test func offlineSendsNothingAndSleepsUntilWoken() async throws {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("a", at: 1)
        _ = queue.add("b", at: 2)
        let uploader = ScriptedUploader()
        uploader.offline.withLock { $0 = true }
        let clock = ManualClock()
        let log = FinishedLog()
        let w = worker(queue, uploader, log: log, clock: clock)
        let group = ServiceGroup(services: [w], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        let task = Task { try await group.run() }
        // Once it has seen offline it sleeps out its one-hour pause on the manual clock.
        #expect(await eventually { await w.snapshot.lastOutcomeOffline && clock.sleeping == 1 })
        #expect(clock.deadlines == [.seconds(3600)])
        let checks = uploader.offlineChecks.withLock { $0 }
        #expect(checks >= 1)
        #expect(uploader.attempts.withLock { $0.isEmpty })
        // Asleep until the clock passes the pause or a wake comes: a second short of it, nothing runs.
        clock.advance(by: .seconds(3599))
        #expect(clock.sleeping == 1, "the worker woke before its pause ended")
        #expect(uploader.offlineChecks.withLock { $0 } == checks, "the worker kept checking while offline")
        // The pause ends: it checks again, still offline, and sleeps another hour.
        clock.advance(by: .seconds(1))
        #expect(await eventually { uploader.offlineChecks.withLock { $0 } > checks && clock.deadlines == [.seconds(7200)] })
        #expect(uploader.attempts.withLock { $0.isEmpty })
        // Connectivity returns; a flush wakes it and everything is delivered.
        uploader.offline.withLock { $0 = false }
        await w.flush()
        await log.waitFor(2)
        #expect(queue.states() == [.delivered(response: nil), .delivered(response: nil)])
        await group.triggerGracefulShutdown()
        try await task.value
    }

    @Test func flushIgnoresBackoffDelays() async throws {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("slow", at: 1)
        let uploader = ScriptedUploader(["slow": [.transient(reason: "503", retryAfter: .seconds(3600))]])
        let w = DeliveryWorker(
            queue: queue, uploader: uploader,
            settings: .init(maxInFlight: 1, backoff: { _, retryAfter in retryAfter ?? .seconds(3600) }, offlinePause: .seconds(3600)),
            logger: Logger(label: "test")
        ) { _, _ in }
        let group = ServiceGroup(services: [w], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        let task = Task { try await group.run() }
        // Wait until the failed attempt is recorded with its one-hour retry time.
        #expect(await eventually { await w.retryStates().values.first?.nextRetryAt != nil })
        #expect(uploader.attempts.withLock { $0.count } == 1)
        #expect(queue.states() == [.pending])
        await w.flush()
        #expect(await eventually { queue.states() != [.pending] })
        #expect(queue.states() == [.delivered(response: nil)])
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

import Foundation
import Logging
import ServiceLifecycle

/// Delivers queued submissions, oldest first, a few at a time.
///
/// While offline it sends nothing and sleeps until the next retry time or until it is woken
/// (a new submission, a flush); it never busy-loops. Transient failures back off with the
/// injected policy; permanent ones become dead letters, marked `rejected` or `unknown`. A
/// submission keeps its idempotency key across every attempt; sessions are told of its fate under
/// the key it was queued with, also when a requeue sends it under a new one.
public actor DeliveryWorker: Service {
    public struct Settings: Sendable {
        /// Uploads in flight at once.
        public var maxInFlight: Int
        /// The delay before retry number `attempt` (1-based), given the server's `Retry-After`.
        public var backoff: @Sendable (_ attempt: Int, _ retryAfter: Duration?) -> Duration
        /// How long to sleep after an offline verdict before checking again, unless woken.
        public var offlinePause: Duration
        /// How many pending submissions one round reads from the queue; a full batch is followed
        /// at once by another round.
        public var batchSize: Int

        public init(maxInFlight: Int, backoff: @escaping @Sendable (Int, Duration?) -> Duration, offlinePause: Duration, batchSize: Int = 4096) {
            self.maxInFlight = maxInFlight
            self.backoff = backoff
            self.offlinePause = offlinePause
            self.batchSize = max(1, batchSize)
        }
    }

    /// What the worker has done, for `surveyctl status`.
    public struct Snapshot: Sendable, Hashable {
        public var inFlight: Int
        public var delivered: Int
        public var lastDeliveryAt: Date?
        public var nextRetryAt: Date?
        public var lastOutcomeOffline: Bool
    }

    let queue: any DeliveryQueue
    let uploader: any AnswerUploader
    let settings: Settings
    let onFinished: @Sendable (UUID, DeliveryState) async -> Void
    let logger: Logger

    /// Retry bookkeeping per submission id.
    var attempts: [String: Int] = [:]
    var notBefore: [String: ContinuousClock.Instant] = [:]
    var wakeup: CheckedContinuation<Void, Never>?
    var wakeRequested = false
    private(set) var snapshotValue = Snapshot(inFlight: 0, delivered: 0, lastDeliveryAt: nil, nextRetryAt: nil, lastOutcomeOffline: false)

    /// - Parameter onFinished: told (with the key the submission was queued with) when it is
    ///   delivered or dead, so sessions waiting for it can go on.
    public init(queue: any DeliveryQueue, uploader: any AnswerUploader, settings: Settings, logger: Logger, onFinished: @escaping @Sendable (UUID, DeliveryState) async -> Void) {
        self.queue = queue
        self.uploader = uploader
        self.settings = settings
        self.logger = logger
        self.onFinished = onFinished
    }

    public var snapshot: Snapshot { snapshotValue }

    /// Wakes the worker: something was queued, or connectivity may have returned.
    public func wake() {
        wakeRequested = true
        wakeup?.resume()
        wakeup = nil
    }

    /// Forgets every backoff delay and wakes the worker, so every pending submission is
    /// attempted now (the connectivity check still applies).
    public func flush() {
        notBefore.removeAll()
        wake()
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                let pause = await deliverRound()
                await sleep(pause)
            }
        } onGracefulShutdown: {
            Task { await self.wake() }
        }
    }

    /// One pass over the due submissions (the queue leaves out those waiting out a backoff, so
    /// every one it returns is due). Returns how long to sleep before the next pass.
    func deliverRound() async -> Duration? {
        wakeRequested = false
        let clock = ContinuousClock()
        let start = clock.now
        let waiting = Set(notBefore.compactMap { $0.value > start ? $0.key : nil })
        let batch: [PendingSubmission]
        do {
            batch = try await queue.pending(limit: settings.batchSize, excluding: waiting)
        } catch {
            logger.error("cannot read the submission queue", metadata: ["error": "\(error)"])
            return settings.offlinePause
        }
        // A sliding window: up to maxInFlight uploads at once; each outcome is recorded in its own
        // task, so that the queue's journal commits several outcomes with one fdatasync while the
        // next uploads are already on their way.
        enum Step: Sendable {
            case uploaded(PendingSubmission, UploadOutcome)
            case recorded
        }
        var offline = false
        await withTaskGroup(of: Step.self) { group in
            var next = 0
            var uploading = 0
            func launch() {
                let submission = batch[next]
                next += 1
                uploading += 1
                group.addTask { [queue, uploader] in
                    do {
                        let body = try await queue.body(of: submission)
                        return .uploaded(submission, await uploader.upload(stage: submission.stage, language: submission.language, body: body, idempotencyKey: submission.idempotencyKey))
                    } catch {
                        return .uploaded(submission, .permanent(reason: "the queued body cannot be read: \(error)"))
                    }
                }
            }
            while next < batch.count && uploading < settings.maxInFlight { launch() }
            snapshotValue.inFlight = uploading
            while let step = await group.next() {
                guard case .uploaded(let submission, let outcome) = step else { continue }
                uploading -= 1
                if case .offline = outcome { offline = true }
                let now = clock.now
                group.addTask { await self.record(outcome, for: submission, now: now); return .recorded }
                if !offline && !Task.isShuttingDownGracefully && next < batch.count { launch() }
                snapshotValue.inFlight = uploading
            }
        }
        snapshotValue.inFlight = 0
        snapshotValue.lastOutcomeOffline = offline
        if offline { return settings.offlinePause }
        // A full batch means more may be pending beyond it: go on at once.
        if batch.count >= settings.batchSize { return .zero }
        // Otherwise sleep until the earliest backoff ends (forever when none is waiting, until woken).
        let nextDue = notBefore.values.min()
        snapshotValue.nextRetryAt = nextDue.map { Date().addingTimeInterval(Self.seconds(clock.now.duration(to: $0))) }
        return nextDue.map { max(.zero, clock.now.duration(to: $0)) }
    }

    func record(_ outcome: UploadOutcome, for submission: PendingSubmission, now: ContinuousClock.Instant) async {
        do {
            switch outcome {
            case .delivered(let next):
                try await queue.markDelivered(submission, nextTypeId: next)
                forget(submission)
                snapshotValue.delivered += 1
                snapshotValue.lastDeliveryAt = Date()
                logger.info("submission delivered", metadata: ["submission": "\(submission.id)", "stage": "\(submission.stage)"])
                await onFinished(submission.queuedKey, .delivered(nextTypeId: next))
            case .rejected(let reason), .permanent(let reason):
                let verdict: DeadLetterOutcome = if case .rejected = outcome { .rejected } else { .unknown }
                try await queue.markDead(submission, reason: reason, outcome: verdict)
                forget(submission)
                logger.warning("submission refused for good", metadata: ["submission": "\(submission.id)", "outcome": "\(verdict.rawValue)", "reason": "\(reason)"])
                await onFinished(submission.queuedKey, .dead(reason: reason))
            case .transient(let reason, let retryAfter):
                let attempt = (attempts[submission.id] ?? 0) + 1
                attempts[submission.id] = attempt
                let delay = settings.backoff(attempt, retryAfter)
                notBefore[submission.id] = now.advanced(by: delay)
                logger.notice("delivery failed, will retry", metadata: ["submission": "\(submission.id)", "attempt": "\(attempt)", "delay": "\(delay)", "reason": "\(reason)"])
            case .offline:
                break
            }
        } catch {
            notBefore[submission.id] = now.advanced(by: settings.offlinePause)
            logger.error("cannot record a delivery outcome; it is retried", metadata: ["submission": "\(submission.id)", "error": "\(error)"])
        }
    }

    func forget(_ submission: PendingSubmission) {
        attempts[submission.id] = nil
        notBefore[submission.id] = nil
    }

    /// Sleeps for `pause` (forever when nil) or until woken.
    func sleep(_ pause: Duration?) async {
        if wakeRequested || Task.isShuttingDownGracefully { return }
        let timer: Task<Void, Never>? = pause.map { pause in
            Task { [weak self] in
                try? await Task.sleep(for: pause)
                await self?.wake()
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { wakeup = $0 }
        } onCancel: {
            Task { await self.wake() }
        }
        timer?.cancel()
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (s, atto) = duration.components
        return TimeInterval(s) + TimeInterval(atto) / 1e18
    }
}

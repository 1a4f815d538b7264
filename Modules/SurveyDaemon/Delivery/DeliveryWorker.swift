import ControlAPI
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Logging
public import Networking
public import ServiceLifecycle
public import Storage

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
        /// The ramp after an outage (``DeliveryRamp``); nil: always `maxInFlight` at once.
        public var ramp: DeliveryRamp.Settings?

        public init(maxInFlight: Int, backoff: @escaping @Sendable (Int, Duration?) -> Duration, offlinePause: Duration, batchSize: Int = 4096, ramp: DeliveryRamp.Settings? = nil) {
            self.maxInFlight = maxInFlight
            self.backoff = backoff
            self.offlinePause = offlinePause
            self.batchSize = max(1, batchSize)
            self.ramp = ramp
        }
    }

    let queue: any DeliveryQueue
    let uploader: any AnswerUploader
    var settings: Settings
    let onFinished: @Sendable (UUID, SubmissionState) async -> Void
    let logger: Logger
    let wakeup: DeliveryWakeup
    /// Woken when a round finds the server unreachable: what the connectivity watcher waits for.
    nonisolated let wentOffline = DeliveryWakeup()
    /// The injected clock: backoffs and pauses are measured and slept on it.
    let timeline: Timeline
    /// The injected date source, for the times `surveyctl status` shows.
    let now: @Sendable () -> Date
    /// Counts deliveries, retries and dead letters.
    let metrics: DaemonMetrics
    /// A number in `0 ... 1` for the ramp's jitter.
    let unitRandom: @Sendable () -> Double
    /// How many uploads may be in flight, how soon the next may start, and whether to hold off
    /// (see ``DeliveryRamp``).
    var ramp: DeliveryRamp

    /// Retry bookkeeping per submission: attempts so far (those whose outcome stayed unknown
    /// apart), and when (on the timeline) the next may start.
    var attempts: [SubmissionID: Int] = [:]
    var unknownOutcomes: [SubmissionID: Int] = [:]
    var notBefore: [SubmissionID: Duration] = [:]
    /// The last transient failure of each submission being retried (DeliveryWorker+Retries.swift).
    var lastErrors: [SubmissionID: String] = [:]
    /// The refusal that started the ramp's hold-off (DeliveryWorker+Schedule.swift).
    var holdOffCause: HoldOffCause?
    /// Since when the server has been unreachable (or something else answered in its place:
    /// `portal` says what, in a sentence), and until when (on the timeline) the worker sleeps unless woken; nil
    /// while it is reachable (DeliveryWorker+Schedule.swift).
    var offlineWait: (since: Date, until: Duration, portal: String?)?
    var snapshotValue = Snapshot(inFlight: 0, delivered: 0, lastDeliveryAt: nil, lastOutcomeOffline: false)

    /// - Parameters:
    ///   - wakeup: how the queue and others wake the worker (``wake()`` uses it too).
    ///   - clock: what backoffs and pauses are measured and slept on.
    ///   - now: the wall-clock time, for `lastDeliveryAt`, ``nextStart(pending:)`` and ``holdOff``.
    ///   - onFinished: told (with the key the submission was queued with) when it is delivered or
    ///     dead, so sessions waiting for it can go on.
    public init(
        queue: any DeliveryQueue, uploader: any AnswerUploader, settings: Settings,
        wakeup: DeliveryWakeup = DeliveryWakeup(), clock: some Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() },
        unitRandom: @escaping @Sendable () -> Double = { Double.random(in: 0 ... 1) },
        logger: Logger, metrics: DaemonMetrics = .disabled, onFinished: @escaping @Sendable (UUID, SubmissionState) async -> Void
    ) {
        self.metrics = metrics
        self.unitRandom = unitRandom
        self.ramp = DeliveryRamp(settings: settings.ramp ?? DeliveryRamp.Settings(enabled: false, maxWindow: settings.maxInFlight))
        self.queue = queue
        self.uploader = uploader
        self.settings = settings
        self.wakeup = wakeup
        self.timeline = Timeline(clock)
        self.now = now
        self.logger = logger
        self.onFinished = onFinished
    }

    public var snapshot: Snapshot { snapshotValue }

    /// Wakes the worker: something was queued, or connectivity may have returned.
    public nonisolated func wake() {
        wakeup.wake()
    }

    /// Forgets every backoff delay and the ramp's hold-off and pace and wakes the worker, so every
    /// pending submission is attempted now (the connectivity check and the ramp's window still
    /// apply).
    public func flush() {
        notBefore.removeAll()
        ramp.forgetHoldOff()
        holdOffCause = nil
        wakeup.wake()
    }

    /// Ends a pause (the token changed, or an operator said so) and wakes the worker, which then
    /// delivers the queue in order. Returns the pause it ended, or nil when it was not paused.
    @discardableResult
    public func resume(because cause: String) -> Pause? {
        guard let pause = snapshotValue.paused else { return nil }
        snapshotValue.paused = nil
        logger.notice("delivery resumed", metadata: ["cause": "\(cause)", "paused since": "\(pause.since)"])
        metrics.events.publish(DaemonEvent(.resumed, outcome: cause))
        wakeup.wake()
        return pause
    }

    /// Stops sending after the server refused the token: every further upload would be refused
    /// too, and none of them says anything about its submission.
    func pause(status: Int, reason: String) {
        guard snapshotValue.paused == nil else { return }
        let pause = Pause(reason: "the server refused the token (\(status))", since: now())
        snapshotValue.paused = pause
        logger.error("delivery paused: the server refused the token; fix the token file (delivery resumes when it changes) or run `surveyctl resume`", metadata: ["status": "\(status)", "reason": "\(reason)"])
        metrics.events.publish(DaemonEvent(.paused, outcome: pause.reason))
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                while !Task.isCancelled && !Task.isShuttingDownGracefully {
                    let pause = await deliverRound()
                    await sleep(pause)
                }
            } onCancel: { [wakeup = self.wakeup] in
                wakeup.wake()
            }
        } onGracefulShutdown: { [wakeup = self.wakeup] in
            wakeup.wake()
        }
    }

    /// One pass over the due submissions (the queue leaves out those waiting out a backoff, so
    /// every one it returns is due). Returns how long to sleep before the next pass.
    func deliverRound() async -> Duration? {
        wakeup.reset()
        // Paused: nothing is sent until ``resume(because:)`` wakes the worker.
        if snapshotValue.paused != nil { return nil }
        let start = timeline.elapsed()
        if let hold = ramp.notBefore, hold > start { return hold - start }
        let waiting = Set(notBefore.compactMap { $0.value > start ? $0.key : nil })
        let batch: [QueuedSubmission]
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
            case uploaded(QueuedSubmission, UploadOutcome)
            case recorded
            /// The ramp's pace lets the next upload start.
            case paced
        }
        var offline = false
        var portal: String?
        var leftBehind = false
        await withTaskGroup(of: Step.self) { group in
            var bodies = RoundBodies(batch)
            var next = 0
            var uploading = 0
            var paceTimer = false
            func launch() async {
                let submission = batch[next]
                let body = await bodies.take(next, from: queue)
                next += 1
                uploading += 1
                ramp.launched(at: timeline.elapsed())
                group.addTask { [uploader] in
                    switch body {
                    case .success(let upload):
                        return .uploaded(submission, await uploader.upload(stage: submission.metadata.stage, language: submission.metadata.language, upload: upload, idempotencyKey: submission.idempotencyKey, sequence: submission.id.ordinal))
                    case .failure(let error):
                        return .uploaded(submission, .permanent(reason: "the queued body cannot be read: \(error)"))
                    }
                }
            }
            func mayLaunch() -> Bool {
                guard next < batch.count, snapshotValue.paused == nil else { return false }
                return ramp.permits(inFlight: uploading, at: timeline.elapsed())
            }
            // While uploads are on their way and only the pace holds the next back, a timer
            // launches it when the pace allows, as a delivery would. Not while stopping: the
            // round then only waits for what is on its way.
            func awaitPace(offline: Bool) {
                guard !paceTimer, !Task.isCancelled, !Task.isShuttingDownGracefully,
                      uploading > 0, uploading < ramp.window, next < batch.count, !offline, snapshotValue.paused == nil,
                      ramp.holdUntil.map({ $0 <= timeline.elapsed() }) ?? true,
                      let start = ramp.nextStart, case let wait = start - timeline.elapsed(), wait > .zero else { return }
                paceTimer = true
                group.addTask { [timeline] in
                    do {
                        try await timeline.sleep(wait)
                        return .paced
                    } catch {
                        // Cancelled: nothing more is launched.
                        return .recorded
                    }
                }
            }
            while mayLaunch() { await launch() }
            awaitPace(offline: offline)
            snapshotValue.inFlight = uploading
            while let step = await group.next() {
                if case .paced = step {
                    paceTimer = false
                    while !offline && !Task.isCancelled && !Task.isShuttingDownGracefully && mayLaunch() { await launch() }
                    awaitPace(offline: offline)
                    snapshotValue.inFlight = uploading
                    continue
                }
                guard case .uploaded(let submission, let outcome) = step else { continue }
                uploading -= 1
                switch outcome {
                case .offline: offline = true
                case .notTheServer(let reason): (offline, portal) = (true, "something else answers in the survey server's place (\(reason)); delivery goes on as soon as the survey server itself answers")
                case .certificate(let reason): (offline, portal) = (true, "the survey server's certificate cannot be used (\(reason)); delivery goes on as soon as the handshake succeeds")
                default: endOfflineWait()
                }
                if case .unauthorized(let status, let reason) = outcome { pause(status: status, reason: reason) }
                let time = timeline.elapsed()
                adjustRamp(after: outcome, at: time)
                group.addTask { await self.record(outcome, for: submission, at: time); return .recorded }
                while !offline && !Task.isShuttingDownGracefully && mayLaunch() { await launch() }
                awaitPace(offline: offline)
                snapshotValue.inFlight = uploading
            }
            leftBehind = next < batch.count
        }
        snapshotValue.inFlight = 0
        snapshotValue.lastOutcomeOffline = offline
        if offline {
            wentOffline.wake()
            waitOffline(from: timeline.elapsed(), portal: portal)
            return settings.offlinePause
        }
        // A full batch means more may be pending beyond it: go on at once.
        if batch.count >= settings.batchSize { return .zero }
        // Otherwise sleep until the earliest backoff, the ramp's hold-off or its pace ends
        // (forever when none is waiting, until woken).
        // Submissions the ramp held back are due when it lets them go, or now if that time passed
        // while the round's last outcomes were recorded: never "until woken".
        let current = timeline.elapsed()
        let holdOff = leftBehind ? max(current, ramp.notBefore ?? current) : ramp.holdUntil.flatMap { $0 > current ? $0 : nil }
        let nextDue = (Array(notBefore.values) + [holdOff].compactMap { $0 }).min()
        return nextDue.map { max(.zero, $0 - current) }
    }

    /// Sleeps for `pause` on the injected clock (until woken when nil), or until woken. The timer
    /// is a child task of this call, gone when it returns: nothing outlives the sleep.
    func sleep(_ pause: Duration?) async {
        if Task.isShuttingDownGracefully || Task.isCancelled { return }
        guard let pause else {
            await wakeup.wait()
            return
        }
        guard pause > .zero else { return }
        await withTaskGroup(of: Void.self) { [timeline, wakeup] group in
            group.addTask {
                // The pause ends as a wake would; cancelled when a wake came first.
                do {
                    try await timeline.sleep(pause)
                    wakeup.wake()
                } catch {}
            }
            await wakeup.wait()
            group.cancelAll()
        }
    }
}

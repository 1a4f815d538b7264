import Networking
import ServiceLifecycle
import Storage

/// Watches connectivity while submissions wait, and wakes the delivery worker as soon as the
/// server is reachable again (the worker itself sleeps on its offline pause while offline).
///
/// It sets no timer while there is nothing to watch: until the worker's last round found the
/// server offline with something pending, it waits for the worker to say a round found it so
/// (``DeliveryWorker/wentOffline``). Then it probes every `schedule.base` of the injected clock;
/// while probes fail, the next one waits as `schedule` says (growing with full jitter up to its
/// cap, so that a fleet does not knock in step on a server that is down); a success starts the
/// schedule over. Online and idle, nothing is probed: every call checks connectivity itself.
struct ConnectivityWatcher: Service {
    let monitor: ConnectivityMonitor
    let worker: DeliveryWorker
    /// How many submissions wait: the watcher probes only while some do.
    let queue: any PendingCount
    let schedule: ProbeSchedule
    var clock: any Clock<Duration> = ContinuousClock()
    /// A number in `0 ... 1` for the jitter of each delay.
    var unitRandom: @Sendable () -> Double = { Double.random(in: 0 ... 1) }

    func run() async throws {
        let timeline = Timeline(clock)
        var failures = 0
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if failures == 0, !(await Self.hasSomethingToWatch(worker: worker, queue: queue)) {
                // Nothing to watch: no timer until a round of the worker finds the server offline.
                if await worker.wentOffline.sleep(nil, on: timeline) == .stopping { return }
                continue
            }
            let delay = failures == 0 ? schedule.base : schedule.delay(failures: failures - 1, unitRandom: unitRandom())
            do {
                try await cancelWhenGracefulShutdown { [clock] in try await clock.sleep(for: delay) }
            } catch {
                return
            }
            guard await queue.pendingCount() > 0 else {
                failures = 0
                continue
            }
            switch await Self.check(monitor: monitor, worker: worker) {
            case false?: failures += 1
            case true?, nil: failures = 0
            }
        }
    }

    /// Whether the worker's last round found the server offline while submissions wait.
    static func hasSomethingToWatch(worker: DeliveryWorker, queue: any PendingCount) async -> Bool {
        guard await worker.snapshot.lastOutcomeOffline else { return false }
        return await queue.pendingCount() > 0
    }

    /// Wakes the worker when the server is reachable and the worker's last round found it
    /// offline. It looks at the worker's own verdict, not at a change this watcher saw: the
    /// worker may have met the outage before the watcher's first probe. Returns the probe's
    /// verdict, nil when no probe was needed.
    @discardableResult
    static func check(monitor: ConnectivityMonitor, worker: DeliveryWorker) async -> Bool? {
        guard await worker.snapshot.lastOutcomeOffline else { return nil }
        guard await monitor.isReachable() else { return false }
        worker.wake()
        return true
    }
}

/// How many submissions wait for delivery, as the connectivity watcher asks.
protocol PendingCount: Sendable {
    func pendingCount() async -> Int
}

extension SubmissionQueue: PendingCount {
    func pendingCount() async -> Int { counts().pending }
}

import Networking
import ServiceLifecycle
import Storage

/// Watches connectivity while submissions wait, and wakes the delivery worker as soon as the
/// server is reachable again (the worker itself sleeps on its offline pause while offline).
///
/// It looks every `schedule.base` of the injected clock whether the worker's last round found the
/// server offline with something pending; only then does it probe. While probes fail, the next
/// one waits as `schedule` says (growing with full jitter up to its cap, so that a fleet does not
/// knock in step on a server that is down); a success starts the schedule over.
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
        var failures = 0
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
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

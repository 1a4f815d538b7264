import Foundation
import Logging
import Networking
import NIOPosix
import ServiceLifecycle
import Storage

/// Journal housekeeping, every `interval`: closes idle sessions as `abandoned`, queues again any
/// completed stage whose queueing failed, compacts the submission queue; and every
/// `compactionInterval`, compacts the session journal (retiring sessions closed longer than
/// `sessionRetention`) and prunes cached definitions nothing refers to any more. Intervals are
/// measured and slept on the injected clock.
struct Housekeeping: Service {
    let sessions: SessionManager
    let queue: SubmissionQueue
    let cache: DefinitionCache
    /// The time between rounds; nil: a quarter of the sessions' idle timeout as it is at each
    /// round (a reload changes it), from 1 s to 30 s.
    var interval: Duration?
    var compactionInterval: Duration = .seconds(600)
    var sessionRetention: Duration = .seconds(24 * 3600)
    var clock: any Clock<Duration> = ContinuousClock()
    let logger: Logger

    func run() async throws {
        let timeline = Timeline(clock)
        var lastCompaction = timeline.elapsed()
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let wait: Duration
            if let interval { wait = interval } else { wait = Self.interval(idleTimeout: await sessions.settings.idleTimeout) }
            do {
                try await cancelWhenGracefulShutdown { try await timeline.sleep(wait) }
            } catch {
                return
            }
            let compactionDue = timeline.elapsed() - lastCompaction >= compactionInterval
            await tick(compactSessions: compactionDue)
            if compactionDue { lastCompaction = timeline.elapsed() }
        }
    }

    /// A quarter of `idleTimeout`, from 1 s to 30 s: an idle session is closed at most that long
    /// after its timeout.
    static func interval(idleTimeout: Duration) -> Duration {
        min(.seconds(30), max(.seconds(1), idleTimeout / 4))
    }

    /// One round of housekeeping; each part logs its own failure and is tried again next round.
    func tick(compactSessions: Bool) async {
        let closed = await sessions.closeIdleSessions()
        if closed > 0 { logger.info("idle sessions closed as abandoned", metadata: ["count": "\(closed)"]) }
        await sessions.settleCompletedStages()
        do {
            _ = try await queue.compact()
        } catch {
            logger.error("queue compaction failed; it is tried again later", metadata: ["error": "\(error)"])
        }
        guard compactSessions else { return }
        do {
            try await sessions.compactJournal(retention: sessionRetention)
        } catch {
            logger.error("session journal compaction failed; it is tried again later", metadata: ["error": "\(error)"])
        }
        let pinned = await sessions.definitionHashesInUse().union(await queue.definitionHashes())
        do {
            let removed = try await NIOThreadPool.singleton.runIfActive { [cache] in try cache.prune(keeping: pinned) }
            if !removed.isEmpty { logger.info("cached definitions pruned", metadata: ["count": "\(removed.count)"]) }
        } catch {
            logger.error("definition cache pruning failed; it is tried again later", metadata: ["error": "\(error)"])
        }
    }
}

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
    let queue: SubmissionQueue
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
            guard await queue.counts().pending > 0 else {
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

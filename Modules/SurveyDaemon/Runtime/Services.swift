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
    let interval: Duration
    var compactionInterval: Duration = .seconds(600)
    var sessionRetention: Duration = .seconds(24 * 3600)
    var clock: any Clock<Duration> = ContinuousClock()
    let logger: Logger

    func run() async throws {
        let timeline = Timeline(clock)
        var lastCompaction = timeline.elapsed()
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await timeline.sleep(interval) }
            } catch {
                return
            }
            let compactionDue = timeline.elapsed() - lastCompaction >= compactionInterval
            await tick(compactSessions: compactionDue)
            if compactionDue { lastCompaction = timeline.elapsed() }
        }
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
/// The probe runs only while something is pending, at most once per `interval` of the injected clock.
struct ConnectivityWatcher: Service {
    let monitor: ConnectivityMonitor
    let worker: DeliveryWorker
    let queue: SubmissionQueue
    let interval: Duration
    var clock: any Clock<Duration> = ContinuousClock()

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { [clock, interval] in try await clock.sleep(for: interval) }
            } catch {
                return
            }
            guard await queue.counts().pending > 0 else { continue }
            await Self.check(monitor: monitor, worker: worker)
        }
    }

    /// Wakes the worker when the server is reachable and the worker's last round found it
    /// offline. It looks at the worker's own verdict, not at a change this watcher saw: the
    /// worker may have met the outage before the watcher's first probe.
    static func check(monitor: ConnectivityMonitor, worker: DeliveryWorker) async {
        guard await worker.snapshot.lastOutcomeOffline, await monitor.isReachable() else { return }
        worker.wake()
    }
}

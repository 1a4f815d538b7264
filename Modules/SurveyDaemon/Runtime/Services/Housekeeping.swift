#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
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
    let queue: any HousekeepingQueue
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

/// What housekeeping asks of the submission queue: a compaction, and the questionnaires its
/// submissions refer to (kept when the definition cache is pruned).
protocol HousekeepingQueue: Sendable {
    func compact() async throws -> SubmissionQueue.CompactionReport
    func definitionHashes() async -> Set<String>
}

extension SubmissionQueue: HousekeepingQueue {}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControlAPI
import Logging
import NIOPosix
import ServiceLifecycle
import Storage
import Synchronization

/// Journal housekeeping: closes idle sessions as `abandoned`, queues again any completed stage
/// whose queueing failed, compacts the submission queue; and at most every `compactionInterval`,
/// compacts the session journal (retiring sessions closed longer than `sessionRetention`) and
/// prunes cached definitions nothing refers to any more.
///
/// It sleeps on the injected clock until a round has something to do (``HousekeepingPlan``): the
/// first open session's idle deadline, a closed session's retirement, a round after something
/// happened (an event of `events`: a session started or closed, a stage queued, a delivery), a
/// look now and then while a completed stage waits for its delivery. With nothing of that, it
/// sets no timer and waits for an event (or a wake of `wakeup`: a reload changed the timeout).
struct Housekeeping: Service {
    let sessions: SessionManager
    let queue: any HousekeepingQueue
    let cache: DefinitionCache
    var compactionInterval: Duration = .seconds(600)
    var sessionRetention: Duration = .seconds(24 * 3600)
    var clock: any Clock<Duration> = ContinuousClock()
    /// What happens that may give housekeeping something to do.
    var events: DaemonEvents?
    /// Makes it look at its deadlines again (the idle timeout was reloaded).
    var wakeup = DeliveryWakeup()
    let logger: Logger

    func run() async throws {
        let happened = HappenedFlag()
        await withTaskGroup(of: Void.self) { group in
            if let stream = events?.subscribe() {
                group.addTask { [wakeup] in
                    await wakeup.follow(stream) { event in
                        // A session started has an idle deadline to look at, and no round to run.
                        if Self.givesWork(event) { happened.value.store(true, ordering: .relaxed) }
                        return Self.givesWork(event) || event.type == .sessionStarted
                    }
                }
            }
            await keepHouse(happened)
            group.cancelAll()
        }
    }

    /// The events after which a round may have something to do.
    static func givesWork(_ event: DaemonEvent) -> Bool {
        [.sessionClosed, .stageQueued, .delivered, .dead].contains(event.type)
    }

    /// The rounds, each when its plan says, until the graceful shutdown.
    private func keepHouse(_ happened: HappenedFlag) async {
        let timeline = Timeline(clock)
        var plan = HousekeepingPlan(compactionInterval: compactionInterval, start: timeline.elapsed())
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let deadlines = await sessions.housekeepingDeadlines(retention: sessionRetention)
            let period = Self.interval(idleTimeout: await sessions.settings.idleTimeout)
            let wait = plan.wait(at: timeline.elapsed(), deadlines: deadlines, period: period)
            switch await wakeup.sleep(wait, on: timeline) {
            case .stopping: return
            case .woken:
                if happened.value.exchange(false, ordering: .relaxed) { plan.somethingHappened() }
                continue
            case .deadline: break
            }
            let now = timeline.elapsed()
            let compactionDue = plan.compactionDue(at: now)
            await tick(compactSessions: compactionDue)
            plan.ran(at: now, compacted: compactionDue)
        }
    }

    /// A quarter of `idleTimeout`, from 1 s to 30 s: how long after something happened a round
    /// runs, and how often one looks while a completed stage waits for its delivery.
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

/// Set when an event gave housekeeping a round to run.
private final class HappenedFlag: Sendable {
    let value = Atomic(false)
}

/// What housekeeping asks of the submission queue: a compaction, and the questionnaires its
/// submissions refer to (kept when the definition cache is pruned).
protocol HousekeepingQueue: Sendable {
    func compact() async throws -> SubmissionQueue.CompactionReport
    func definitionHashes() async -> Set<String>
}

extension SubmissionQueue: HousekeepingQueue {}

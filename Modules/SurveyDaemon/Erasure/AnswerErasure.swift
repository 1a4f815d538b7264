#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Logging
public import Storage

/// The submission queue as erasure sees it: since when a delivered (or dropped) submission's
/// body has waited on disk, and the purge that takes every such body off it.
public protocol ErasableQueue: Sendable {
    /// Since when a delivered or dropped submission's body has waited in the queue's files (a
    /// wall-clock date, for people); nil when none is known to wait.
    func erasableSince() async -> Date?
    /// How long that body has waited, on a monotonic clock: what the delay is judged on; nil
    /// when none is known to wait.
    func erasableFor() async -> Duration?
    /// Carries the pending and dead submissions into a new segment and removes every older one.
    func purge() async throws -> SubmissionQueue.PurgeReport
}

/// Takes respondents' answers off the disk once they are no longer needed, ``delay`` after that
/// (``erase(all:)`` with `all: false`, run by the ``ErasureService``) or at once (`all: true`,
/// `surveyctl purge`):
/// - the session journal: closed sessions' answers (``SessionManager/eraseAnswers(waitedAtLeast:)``);
/// - the submission queue: delivered and dropped bodies (a purge of the queue);
/// - the copies of damaged bytes that recovery kept beside both journals' segments, which wait
///   from the daemon's start, when they were found.
///
/// Nothing else in the state directory holds answers: compaction writes no temporary copy of a
/// record, and the definition cache holds questionnaires only.
///
/// The delay is measured on monotonic clocks (the session manager's, the queue's and this
/// erasure's own `clock`, `ContinuousClock` in the daemon: it counts the time a suspended machine
/// slept, which answers spend on disk too): a step of the wall clock neither keeps answers a day
/// longer nor erases them early. Waits that began before a restart count from the restart at the
/// latest. The wall-clock dates in ``Waiting`` are for people.
public struct AnswerErasure: Sendable {
    let sessions: SessionManager
    let queue: any ErasableQueue
    /// The journals whose kept copies of damaged bytes are erased.
    let journals: [Journal]
    /// How long answers no longer needed stay on disk.
    public let delay: Duration
    /// Since when the kept copies have waited (for people): they are made when a journal is
    /// opened, just before this erasure is made.
    let keptSince: Date
    /// The time elapsed since this erasure was made: how long the kept copies have waited.
    let timeline: Timeline
    let logger: Logger

    /// - Parameters:
    ///   - keptSince: the wall-clock date the journals were opened, for `surveyctl status`.
    ///   - clock: a monotonic clock (`ContinuousClock` in the daemon) on which the kept copies'
    ///     wait is measured, from now.
    public init(sessions: SessionManager, queue: any ErasableQueue, journals: [Journal], delay: Duration, keptSince: Date, clock: some Clock<Duration> = ContinuousClock(), logger: Logger) {
        self.sessions = sessions
        self.queue = queue
        self.journals = journals
        self.delay = delay
        self.keptSince = keptSince
        self.timeline = Timeline(clock)
        self.logger = logger
    }

    /// What one erasure took off the disk.
    public struct Report: Sendable, Hashable {
        /// Sessions whose answers were erased from the session journal.
        public var sessions = 0
        /// The queue's purge, when it ran.
        public var queue: SubmissionQueue.PurgeReport?
        /// Kept copies of damaged bytes removed.
        public var keptCopies = 0
    }

    /// What waits for erasure now.
    public struct Waiting: Sendable, Hashable {
        /// Since when the answers that have waited longest have waited (a wall-clock date); nil
        /// when nothing waits.
        public var oldest: Date?
        /// How long the answers that have waited longest have waited, on the monotonic clocks;
        /// nil when nothing waits.
        public var longest: Duration?
        /// Closed sessions whose answers wait.
        public var sessions: Int
        /// Whether delivered or dropped bodies wait in the queue's files.
        public var queueBodies: Bool
        /// Kept copies of damaged bytes that wait.
        public var keptCopies: Int
    }

    /// What waits for erasure now, and since when.
    public func waiting() async -> Waiting {
        let sessionsSince = await sessions.oldestAwaitingErasure()
        let queueSince = await queue.erasableSince()
        let copies = journals.reduce(0) { $0 + ((try? $1.keptCopies().count) ?? 0) }
        let oldest = [sessionsSince, queueSince, copies > 0 ? keptSince : nil].compactMap { $0 }.min()
        let longest = [await sessions.longestErasureWait(), await queue.erasableFor(), copies > 0 ? timeline.elapsed() : nil].compactMap { $0 }.max()
        return Waiting(oldest: oldest, longest: longest, sessions: await sessions.sessionsAwaitingErasure(), queueBodies: queueSince != nil, keptCopies: copies)
    }

    /// Erases what has waited at least ``delay`` (`all`: everything that waits, now; the queue is
    /// then purged whether or not a body waits). Each part is tried even when another fails;
    /// the first failure is thrown afterwards.
    @discardableResult
    public func erase(all: Bool) async throws -> Report {
        var report = Report()
        var failure: (any Error)?
        do {
            report.sessions = try await sessions.eraseAnswers(waitedAtLeast: all ? nil : delay)
        } catch {
            logger.error("answers of closed sessions cannot be erased yet; tried again later", metadata: ["error": "\(error)"])
            failure = error
        }
        do {
            if all {
                report.queue = try await queue.purge()
            } else if let waited = await queue.erasableFor(), waited >= delay {
                report.queue = try await queue.purge()
            }
        } catch {
            logger.error("delivered submissions cannot be erased from the queue yet; tried again later", metadata: ["error": "\(error)"])
            failure = failure ?? error
        }
        if all || timeline.elapsed() >= delay {
            for journal in journals {
                do {
                    report.keptCopies += try journal.removeKeptCopies(journal.keptCopies())
                } catch {
                    logger.error("kept copies of damaged bytes cannot be erased yet; tried again later", metadata: ["directory": "\(journal.directory)", "error": "\(error)"])
                    failure = failure ?? error
                }
            }
        }
        if report.sessions > 0 || report.queue != nil || report.keptCopies > 0 {
            logger.info("answers erased from disk", metadata: ["sessions": "\(report.sessions)", "queuePurged": "\(report.queue != nil)", "keptCopies": "\(report.keptCopies)"])
        }
        if let failure { throw failure }
        return report
    }

    /// How long the erasure service sleeps before its next round: until the oldest answer's
    /// delay is over, at least 1 s; nil when no answer waits (it then sleeps until one starts
    /// to, ``answersMayWait()``).
    func nextRound() async -> Duration? {
        guard let longest = await waiting().longest else { return nil }
        let left = delay - longest
        return max(.milliseconds(Int64((max(0, left.timeInterval) * 1000).rounded(.up))), .seconds(1))
    }

    /// Something may have started to wait for erasure (a submission delivered, a dead letter
    /// dropped): the erasure service looks again.
    public func answersMayWait() {
        sessions.erasureWakeup.wake()
    }
}

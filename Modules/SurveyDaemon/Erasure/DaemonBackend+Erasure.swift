import ControlAPI
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Storage

/// The control API's view of erasure: `status`'s `erasure`, and `purge` erasing everything that
/// waits at once.
extension DaemonBackend {
    /// What waits for erasure, for `status`; nil without an erasure. Made on the concurrency
    /// pool: it lists the journals' directories. The wait is measured on the monotonic clocks
    /// the erasure judges on, not from `time`.
    func erasureView(at time: Date) async -> StatusView.Erasure? {
        guard let erasure else { return nil }
        let waiting = await onPool { await erasure.waiting() }
        return StatusView.Erasure(
            delaySeconds: erasure.delay.timeInterval, oldestWaitingSeconds: waiting.longest.map { max(0, $0.timeInterval) },
            sessions: waiting.sessions, queueBodies: waiting.queueBodies, keptCopies: waiting.keptCopies)
    }

    /// `POST /v1/purge`: erases every answer that waits (closed sessions' answers, delivered and
    /// dropped bodies, kept copies of damaged bytes) now; `503 queue_unavailable` when a part fails.
    func erasePurging(_ erasure: AnswerErasure) async throws -> PurgeReply {
        let report: AnswerErasure.Report
        do {
            report = try await onPool { try await erasure.erase(all: true) }
        } catch {
            throw ControlError.unavailable("queue_unavailable", "the answers waiting for erasure cannot all be erased: \(error); check the state directory and `surveyctl status`, then purge again")
        }
        let queue = report.queue
        return PurgeReply(
            bytesBefore: queue?.bytesBefore ?? 0, bytesAfter: queue?.bytesAfter ?? 0, removedSegments: queue?.removedSegments.count ?? 0,
            carried: queue?.carriedRecords ?? 0, erasedSessions: report.sessions, removedKeptCopies: report.keptCopies)
    }
}

extension StoredSubmissionQueue: ErasableQueue {
    public func erasableSince() async -> Date? {
        await queue.erasableSince
    }

    public func erasableFor() async -> Duration? {
        await queue.erasableFor
    }
}

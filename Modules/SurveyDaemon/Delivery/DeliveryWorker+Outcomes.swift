#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import Networking
import Storage

extension DeliveryWorker {
    /// How many attempts an upload whose outcome stays unknown (the server's reply cannot be read)
    /// gets, under the same key, before it is kept aside as a dead letter.
    public static let unknownOutcomeAttempts = 5

    /// Records what an upload came to in the queue, and tells the session waiting for it.
    func record(_ outcome: UploadOutcome, for submission: QueuedSubmission, at time: Duration) async {
        let id = submission.id
        do {
            switch outcome {
            case .delivered(let next):
                try await queue.markDelivered(id, nextTypeId: next)
                forget(id)
                snapshotValue.delivered += 1
                snapshotValue.lastDeliveryAt = now()
                // From the wall-clock time it was queued (it may come from an earlier run): a
                // clock stepped back since gives no negative latency.
                metrics.submissionDelivered(latency: max(0, now().timeIntervalSince(submission.metadata.queuedAt)))
                logger.info("submission delivered", metadata: ["submission": "\(id)", "stage": "\(submission.metadata.stage)"])
                await onFinished(submission.metadata.key, .delivered(response: next))
            case .rejected(let reason), .permanent(let reason):
                let verdict: DeadOutcome = if case .rejected = outcome { .rejected } else { .unknown }
                try await queue.markDead(id, reason: reason, outcome: verdict)
                forget(id)
                metrics.submissionDead(verdict)
                logger.warning("submission refused for good", metadata: ["submission": "\(id)", "outcome": "\(verdict.rawValue)", "reason": "\(reason)"])
                await onFinished(submission.metadata.key, .dead(reason: reason))
            case .unknown(let reason) where (unknownOutcomes[id] ?? 0) + 1 >= Self.unknownOutcomeAttempts:
                let reason = "the outcome stayed unknown after \(Self.unknownOutcomeAttempts) attempts: \(reason)"
                try await queue.markDead(id, reason: reason, outcome: .unknown)
                forget(id)
                metrics.submissionDead(.unknown)
                logger.warning("submission kept aside", metadata: ["submission": "\(id)", "outcome": "unknown", "reason": "\(reason)"])
                await onFinished(submission.metadata.key, .dead(reason: reason))
            case .unknown(let reason):
                unknownOutcomes[id, default: 0] += 1
                scheduleRetry(id, reason: reason, retryAfter: nil, at: time)
            case .transient(let reason, let retryAfter), .overloaded(let reason, _, let retryAfter):
                scheduleRetry(id, reason: reason, retryAfter: retryAfter, at: time)
            case .offline, .unauthorized, .notTheServer, .certificate:
                // Nothing is known of the submission: it stays pending, its attempts uncounted.
                break
            }
        } catch {
            notBefore[id] = time + settings.offlinePause
            logger.error("cannot record a delivery outcome; it is retried", metadata: ["submission": "\(id)", "error": "\(error)"])
        }
    }

    /// A failed upload waits out its backoff (or the server's `Retry-After`) before the next attempt.
    private func scheduleRetry(_ id: SubmissionID, reason: String, retryAfter: Duration?, at time: Duration) {
        let attempt = (attempts[id] ?? 0) + 1
        attempts[id] = attempt
        lastErrors[id] = reason
        let delay = settings.backoff(attempt, retryAfter)
        notBefore[id] = time + delay
        metrics.submissionRetried()
        logger.notice("delivery failed, will retry", metadata: ["submission": "\(id)", "attempt": "\(attempt)", "delay": "\(delay)", "reason": "\(reason)"])
    }

    /// The ramp learns from each outcome: a delivery opens it, an overloaded server closes it and
    /// holds every upload off, an unreachable one starts it over for after the outage.
    func adjustRamp(after outcome: UploadOutcome, at time: Duration) {
        switch outcome {
        case .delivered: ramp.delivered()
        case .overloaded(_, let status, let retryAfter):
            ramp.refused(retryAfter: retryAfter, at: time, unitRandom: unitRandom())
            holdOffCause = HoldOffCause(status: status, askedToWait: retryAfter != nil)
        case .offline, .notTheServer, .certificate: ramp.restart()
        case .transient, .rejected, .permanent, .unauthorized, .unknown: break
        }
    }

    func forget(_ id: SubmissionID) {
        attempts[id] = nil
        unknownOutcomes[id] = nil
        notBefore[id] = nil
        lastErrors[id] = nil
    }
}

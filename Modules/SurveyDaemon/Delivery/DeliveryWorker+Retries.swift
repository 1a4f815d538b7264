import Foundation
import Storage

extension DeliveryWorker {
    /// What the worker knows of a submission's delivery so far, for the operator's queue listing.
    public struct RetryState: Sendable, Hashable {
        /// Failed attempts since the daemon started.
        public var attempts: Int
        /// The last transient failure.
        public var lastError: String?
        /// When its backoff ends; nil when it is not waiting.
        public var nextRetryAt: Date?
    }

    /// The retry state of every submission the worker is retrying (kept in memory only).
    public func retryStates() -> [SubmissionID: RetryState] {
        let current = timeline.elapsed()
        let wall = now()
        var states: [SubmissionID: RetryState] = [:]
        for id in Set(attempts.keys).union(notBefore.keys) {
            let due = notBefore[id].flatMap { $0 > current ? wall.addingTimeInterval(($0 - current).timeInterval) : nil }
            states[id] = RetryState(attempts: attempts[id] ?? 0, lastError: lastErrors[id], nextRetryAt: due)
        }
        return states
    }
}

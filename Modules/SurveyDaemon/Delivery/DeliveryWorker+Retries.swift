#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Storage

extension DeliveryWorker {
    /// What the worker knows of a submission's delivery so far, for the operator's queue listing.
    public struct RetryState: Sendable, Hashable {
        /// Failed attempts since the daemon started.
        public var attempts: Int
        /// The last transient failure.
        public var lastError: String?
        /// When it can be tried again: the end of its backoff, or of the ramp's hold-off or pace
        /// when that is later; nil when it is not waiting.
        public var nextRetryAt: Date?
    }

    /// The retry state of every submission the worker is retrying (kept in memory only).
    public func retryStates() -> [SubmissionID: RetryState] {
        let current = timeline.elapsed()
        var states: [SubmissionID: RetryState] = [:]
        for id in Set(attempts.keys).union(notBefore.keys) {
            let due = notBefore[id].flatMap { $0 > current ? date(of: startAllowed(after: $0), at: current) : nil }
            states[id] = RetryState(attempts: attempts[id] ?? 0, lastError: lastErrors[id], nextRetryAt: due)
        }
        return states
    }
}

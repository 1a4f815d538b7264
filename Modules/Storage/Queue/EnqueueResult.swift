/// What `SubmissionQueue.enqueue(_:body:)` did with a submission: its idempotency key decides.
public enum EnqueueResult: Sendable, Hashable {
    /// Queued now, durably: a new entry.
    case queued(QueuedSubmission)
    /// The key was already pending or a dead letter: nothing was written; the entry it has.
    case alreadyQueued(QueuedSubmission)
    /// The key was delivered (the queue still remembers it): nothing was written, and there is
    /// no entry to name.
    case alreadyDelivered

    /// The queue's entry for the key, nil when it was already delivered.
    public var entry: QueuedSubmission? {
        switch self {
        case .queued(let entry), .alreadyQueued(let entry): entry
        case .alreadyDelivered: nil
        }
    }
}

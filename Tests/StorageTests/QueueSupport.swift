import Storage
import Testing

extension SubmissionQueue {
    /// Enqueues a submission whose key the queue has not seen, and returns its new entry; a key
    /// found pending, dead or delivered fails the test.
    func enqueueNew(_ metadata: SubmissionMetadata, body: [UInt8]) async throws -> QueuedSubmission {
        let result = try await enqueue(metadata, body: body)
        guard case .queued(let entry) = result else {
            Issue.record("expected a new entry for key \(metadata.key), the queue answered \(result)")
            throw CancellationError()
        }
        return entry
    }
}

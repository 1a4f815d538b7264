import Storage

extension DeliveryWorker {
    /// The bodies of one round's submissions, read from the queue a chunk at a time, as uploads
    /// are launched: one call to the queue (one trip to its thread) for the next `chunk`
    /// submissions rather than one per upload. At most a chunk's bodies wait in memory; those a
    /// round did not launch are dropped with it and read again by the next.
    struct RoundBodies {
        /// How many bodies one call reads.
        static let chunk = 32

        private let batch: [QueuedSubmission]
        private var read: [SubmissionID: Result<StoredUpload, any Error>] = [:]

        init(_ batch: [QueuedSubmission]) { self.batch = batch }

        /// The body of `batch[index]`, reading it and the next ones from `queue` when it has not
        /// been read yet.
        mutating func take(_ index: Int, from queue: any DeliveryQueue) async -> Result<StoredUpload, any Error> {
            let id = batch[index].id
            if read[id] == nil {
                let ids = batch[index..<min(index + Self.chunk, batch.count)].map(\.id)
                for (id, body) in zip(ids, await queue.bodies(of: ids)) { read[id] = body }
            }
            return read.removeValue(forKey: id) ?? .failure(MissingBody(id: id))
        }

        /// A queue that returned fewer bodies than it was asked for.
        struct MissingBody: Error, CustomStringConvertible {
            var id: SubmissionID
            var description: String { "the queue returned no body for submission \(id)" }
        }
    }
}

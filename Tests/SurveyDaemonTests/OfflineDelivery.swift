import Foundation
import Logging
import Storage
@testable import SurveyDaemon
import SurveyTesting

/// The start of every connectivity test: one submission pending in memory, an uploader that finds
/// the server offline, and a worker (one upload at a time, an hour's offline pause) delivering it.
struct OfflineDelivery {
    let queue: MemoryDeliveryQueue
    let uploader: ScriptedUploader
    let worker: DeliveryWorker

    init() {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("a", at: 1)
        let uploader = ScriptedUploader()
        uploader.offline.withLock { $0 = true }
        self.queue = queue
        self.uploader = uploader
        worker = DeliveryWorker(
            queue: queue, uploader: uploader,
            settings: .init(maxInFlight: 1, backoff: { _, _ in .seconds(1) }, offlinePause: .seconds(3600)),
            logger: Logger(label: "test")
        ) { _, _ in }
    }

    /// A queue on disk in `dir` with one submission pending: what the connectivity watcher looks
    /// at to decide whether to probe. The caller closes it.
    static func pendingStorage(in dir: TemporaryDirectory) async throws -> SubmissionQueue {
        let storage = try SubmissionQueue(directory: dir.path, logger: Logger(label: "test"))
        do {
            try await storage.enqueue(SubmissionMetadata(key: UUID(), stage: "a", language: "en", definitionHash: "h", queuedAt: Date()), body: Array("{}".utf8))
        } catch {
            storage.close()
            throw error
        }
        return storage
    }
}

import Foundation
import Logging
@testable import SurveyDaemon
import SurveyTesting
import Synchronization

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
}

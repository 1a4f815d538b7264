import Foundation
import Logging
import Networking
import ServiceLifecycle
import Storage

/// Journal housekeeping: closes idle sessions as `abandoned` and compacts the submission queue,
/// every `interval`.
struct Housekeeping: Service {
    let sessions: SessionManager
    let queue: SubmissionQueue
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
            let closed = await sessions.closeIdleSessions()
            if closed > 0 { logger.info("idle sessions closed as abandoned", metadata: ["count": "\(closed)"]) }
            do {
                _ = try await queue.compact()
            } catch {
                logger.error("queue compaction failed; it is tried again later", metadata: ["error": "\(error)"])
            }
        }
    }
}

/// Watches connectivity while submissions wait, and wakes the delivery worker as soon as the
/// server is reachable again (the worker itself sleeps on its backoff while offline).
/// The probe runs only while something is pending, at most once per `interval`.
struct ConnectivityWatcher: Service {
    let monitor: ConnectivityMonitor
    let worker: DeliveryWorker
    let queue: SubmissionQueue
    let interval: Duration

    func run() async throws {
        var wasOnline: Bool?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
            guard await queue.counts().pending > 0 else { continue }
            let online = await monitor.isReachable()
            if online && wasOnline == false { await worker.wake() }
            wasOnline = online
        }
    }
}

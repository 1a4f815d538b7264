import AsyncHTTPClient
import NIOCore
import Storage

import class Foundation.Thread
import Logging

/// The daemon's stop: its journals, its HTTP client and its control loop are closed, and no
/// thread it started is left running.
extension Daemon {
    /// Closes the journals (after what was pending is durable) and shuts the HTTP client down
    /// without blocking a thread of the concurrency pool; removes the control socket (when it is
    /// still the one this daemon bound) and releases its lock.
    func close() async {
        socketClaim.release()
        // Closing waits for each journal's writer thread to commit and stop: on a thread of its
        // own, not on one of the concurrency pool's few threads.
        let journals = (sessions: sessionJournal, queue: queue.queue)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                journals.sessions.close()
                journals.queue.close()
                done.resume()
            }
        }
        do {
            try await httpClient.shutdown()
        } catch {
            logger.warning("the HTTP client did not shut down cleanly", metadata: ["error": "\(error)"])
        }
        do {
            // Completes once the loop's thread has ended.
            try await controlLoops.shutdownGracefully()
        } catch {
            logger.warning("the control server's event loop did not shut down cleanly", metadata: ["error": "\(error)"])
        }
        let left = threadsRunning
        guard left.isEmpty else {
            logger.error("threads of the daemon still run after its stop", metadata: ["threads": "\(left.joined(separator: ", "))"])
            assertionFailure("threads of the daemon still run after its stop: \(left)")
            return
        }
        logger.info("surveyd stopped; journals closed")
    }

    /// The threads this daemon started that still run: the journals' writers, the queue's own
    /// thread and the wall clock's watcher (the control server's event loop has ended once
    /// ``close()`` has shut it down). Empty once the daemon has stopped; ``close()`` checks it.
    var threadsRunning: [String] {
        (sessionJournal.writerThreadRunning ? ["\(sessionJournal.directory) journal writer"] : []) + queue.queue.threadsRunning
            + (wallClockWatcher.threadRunning ? ["wall clock watcher"] : [])
    }
}

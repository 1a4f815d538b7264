import AsyncHTTPClient
import NIOCore
import Storage
import Synchronization
import Logging

/// The daemon's stop: its journals, its HTTP client and its control loop are closed, and no
/// thread it started is left running.
extension Daemon {
    /// Closes the journals (after what was pending is durable) and shuts the HTTP client down
    /// without blocking a thread of the concurrency pool; removes the control socket (when it is
    /// still the one this daemon bound) and releases its lock. ``run(signals:systemd:onReady:reload:)``
    /// calls it as it ends; a daemon that is not run must be closed by its owner (a debug build
    /// traps when one is released without it). Closing again does nothing.
    public func close() async {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // The staff screen's counts of the sessions closed while the daemon stopped are written
        // before another daemon may take the state directory.
        await backend.staffDesk?.today?.flushed()
        socketClaim.release()
        // Each journal's writer thread commits what is pending and stops; nothing here waits on
        // a thread of the concurrency pool.
        async let sessionsClosed: Void = sessionJournal.close()
        async let queueClosed: Void = queue.queue.close()
        _ = await (sessionsClosed, queueClosed)
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
        // The token file's watch ends its thread when its service stops; one that did not run to
        // its end (a failed start) is stopped here, and waited for.
        await directoryWatches.stopAll()
        let left = threadsRunning
        guard left.isEmpty else {
            logger.error("threads of the daemon still run after its stop", metadata: ["threads": "\(left.joined(separator: ", "))"])
            assertionFailure("threads of the daemon still run after its stop: \(left)")
            return
        }
        logger.info("surveyd stopped; journals closed")
    }

    /// The threads this daemon started that still run: the journals' writers, the queue's own
    /// thread, the wall clock's watcher and the token file's directory watch (the control
    /// server's event loop has ended once ``close()`` has shut it down). Empty once the daemon has
    /// stopped; ``close()`` checks it.
    var threadsRunning: [String] {
        (sessionJournal.writerThreadRunning ? ["\(sessionJournal.directory) journal writer"] : []) + queue.queue.threadsRunning
            + (wallClockWatcher.threadRunning ? ["wall clock watcher"] : [])
            + directoryWatches.running.map { "\($0) directory watch" }
    }

    /// From the deinit of a daemon nobody closed: a trap in debug builds. Its journals' deinits
    /// then close them, and its HTTP client's reports itself.
    func releasedWithoutClose() {
        assertionFailure("The daemon for \(configuration.stateDirectory) was released without close(): run it, or await its close(), before letting it go.")
        logger.error("the daemon was released without being closed", metadata: ["state": "\(configuration.stateDirectory)"])
    }
}

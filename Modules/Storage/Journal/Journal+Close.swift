// How a journal ends: ``close()`` asks the writer to commit what is pending and stop; the writer
// thread itself then cuts the active segment's preallocated tail, closes the descriptors and
// releases the directory lock, and resumes whoever waits. No caller's thread is blocked.
// A journal let go without ``close()`` is a programming error that debug builds trap on.

import Dispatch
import Logging
import Synchronization

extension Journal {
    /// Whether the writer thread still runs: true until ``close()`` has returned.
    public var writerThreadRunning: Bool { writerRunning.load(ordering: .acquiring) }

    /// Stops the writer after it has committed what is pending, and releases the descriptors and
    /// the directory lock; returns once that is done. Waits without holding a thread.
    public func close() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            close { done.resume() }
        }
    }

    /// Asks the writer to stop after it has committed what is pending; `closed` is called once
    /// the journal is closed (on the writer's thread, or at once on this one when it already is).
    public func close(then closed: @escaping @Sendable () -> Void) {
        let already = state.withLock { s in
            if s.closed { return true }
            s.closing = true
            s.closeWaiters.append(closed)
            return false
        }
        if already { closed() } else { wakeup.signal() }
    }

    /// The writer's last turn, on its thread: its state is no other thread's. A closed
    /// journal's segments end with their last record. Returns the calls waiting for the close.
    func finishClose() -> [@Sendable () -> Void] {
        if segmentFD >= 0 {
            if !needsRestore {
                do {
                    try cutReservation()
                } catch {
                    logger.warning("cannot cut the preallocated tail of the active segment; the next opening cuts it", metadata: ["directory": "\(directory)", "segment": "\(segmentName)", "cause": "\(error)"])
                }
            }
            io.close(segmentFD)
            segmentFD = -1
        }
        readers.withLock { readers in
            for fd in readers.values { io.close(fd) }
            readers.removeAll()
        }
        // Unlock before closing: a child forked meanwhile (not yet exec'd) shares the open file
        // description, and closing our descriptor alone would leave the directory locked.
        do {
            try io.unlock(lockFD)
        } catch {
            logger.warning("cannot unlock the journal directory; it stays locked until every process that shares the lock exits", metadata: ["directory": "\(directory)", "cause": "\(error)"])
        }
        io.close(lockFD)
        let waiters = state.withLock { s in
            s.closed = true
            defer { s.closeWaiters = [] }
            return s.closeWaiters
        }
        writerRunning.store(false, ordering: .releasing)
        return waiters
    }

    /// From the deinit of a journal nobody closed: a trap in debug builds (the owner forgot
    /// ``close()``); otherwise logged, and ``closeOnRelease()`` closes it.
    func releasedWithoutClose() {
        assertionFailure("The journal in \(directory) was released without close(): await its close() before letting it go.")
        logger.error("a journal was released without being closed; it is closed now", metadata: ["directory": "\(directory)"])
    }

    /// From the deinit of a journal whose writer has not closed it: nothing else holds the
    /// journal, and the writer, which does not hold it while it waits, is waiting. What is
    /// written is made durable and the descriptors and the lock released, as the writer's last
    /// turn would (no append can be pending: an append holds the journal until it returns).
    func closeOnRelease() {
        if unsyncedSince != nil && !failed { syncWritten() }
        for waiter in finishClose() { waiter() }
        wakeup.signal()
    }
}

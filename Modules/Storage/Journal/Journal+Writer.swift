// The journal's writer: one dedicated thread takes every pending append, refuses what would go
// over the disk cap, encodes the rest into one buffer, writes it with one `write` and makes it
// durable with one `fdatasync` (group commit), or later as the durability mode and the append
// kinds allow (sync policy). A failure hands over to `Journal+Failure.swift`.

#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import class Foundation.Thread
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

extension Journal {
    /// What the writer waits for between turns.
    enum WriterWait {
        /// An append or ``close()``.
        case signal
        /// Also the next attempt to write again after a failure, at this time.
        case retry(DispatchTime)
        /// Also the fdatasync that written records wait for, at this time.
        case sync(DispatchTime)

        /// Waits; returns what the turn that follows is for.
        func wait(on wakeup: DispatchSemaphore) -> WriterWake {
            switch self {
            case .signal:
                wakeup.wait()
                return .signalled
            case .retry(let deadline):
                return wakeup.wait(timeout: deadline) == .timedOut ? .retryDue : .signalled
            case .sync(let deadline):
                if deadline <= .now() { return .syncDue }
                return wakeup.wait(timeout: deadline) == .timedOut ? .syncDue : .signalled
            }
        }
    }

    enum WriterWake { case signalled, retryDue, syncDue }

    /// The writer's buffers, kept from turn to turn.
    struct WriterWork {
        var buffer: [UInt8] = []
        /// The batch being committed; swapped with the (empty) pending list under the lock, so
        /// that appends go into storage that already has room for a batch.
        var batch: [Pending] = []
        init() { batch.reserveCapacity(Journal.batchCapacity) }
    }

    /// Starts the writer thread. It holds the journal only during a turn, never while it waits:
    /// a journal its owners let go without ``close()`` is released (its deinit reports it) and
    /// the thread ends at its next wake.
    func startWriter() {
        let wakeup = self.wakeup
        let thread = Thread { [weak self] in
            var work = WriterWork()
            var wait = WriterWait.signal
            while true {
                let wake = wait.wait(on: wakeup)
                switch self?.writerTurn(wake, work: &work) {
                case .wait(let next)?: wait = next
                // Called once the turn let go of the journal: whoever waits for the close may
                // release it at once.
                case .closed(let waiters)?: for waiter in waiters { waiter() }; return
                case nil: return
                }
            }
        }
        thread.name = "journal-writer"
        thread.start()
    }

    /// What follows a turn of the writer.
    enum WriterNext {
        case wait(WriterWait)
        /// The journal is closed; these wait for it.
        case closed([@Sendable () -> Void])
    }

    /// One turn of the writer: commits what is pending (or syncs, or probes after a failure).
    private func writerTurn(_ wake: WriterWake, work: inout WriterWork) -> WriterNext {
        if wake == .syncDue {
            syncWritten()
            return .wait(nextWait())
        }
        let closing = state.withLock { s -> Bool in
            swap(&s.pending, &work.batch)
            return s.closing
        }
        // Failed: restore the active segment if needed; with no append to try, probe.
        if failed && !closing { attemptRecovery(probe: wake == .retryDue && work.batch.isEmpty) }
        if !work.batch.isEmpty { commit(work.batch, buffer: &work.buffer) }
        if work.batch.capacity > Journal.batchCapacity * 16 {
            work.batch = []
            work.batch.reserveCapacity(Journal.batchCapacity)
        } else {
            work.batch.removeAll(keepingCapacity: true)
        }
        if closing && state.withLock({ $0.pending.isEmpty }) {
            if unsyncedSince != nil && !failed { syncWritten() }
            return .closed(finishClose())
        }
        return .wait(nextWait())
    }

    /// The writer's next wait: for an append, and for the retry after a failure or the
    /// fdatasync that written records wait for.
    private func nextWait() -> WriterWait {
        if failed { return .retry(.now() + Journal.dispatchInterval(options.retryInterval)) }
        if let since = unsyncedSince {
            return .sync(.now() + Journal.dispatchInterval(lazySyncInterval - (ContinuousClock.now - since)))
        }
        return .signal
    }

    /// How long written records may wait for their fdatasync: relaxed mode's interval, or in
    /// strict mode the one for `.deferredMarker` records.
    private var lazySyncInterval: Duration {
        if case .relaxed(let interval) = options.durability { return interval }
        return options.deferredSyncInterval
    }

    /// Makes what was written so far durable (relaxed mode, deferred records); a failure makes
    /// the journal fail until it can write again.
    func syncWritten() {
        unsyncedSince = nil
        guard !needsRestore, segmentFD >= 0 else { return }
        do {
            try sync()
        } catch {
            fail(error, batch: [])
        }
    }

    /// fdatasync of the active segment; on success everything written is durable.
    private func sync() throws {
        let started = ContinuousClock.now
        try io.fdatasync(segmentFD)
        options.observer?.synced(after: ContinuousClock.now - started)
        syncedBytes = segmentBytes
        unsynced.removeAll(keepingCapacity: true)
        unsyncedSince = nil
    }

    private func commit(_ batch: [Pending], buffer: inout [UInt8]) {
        if needsRestore, let f = state.withLock({ $0.failure?.error }) {
            for p in batch { p.continuation.resume(throwing: f) }
            return
        }
        // The disk cap: refuse what would go over it, before anything is written.
        var batch = batch
        if let cap = options.diskCap {
            var used = state.withLock { $0.diskBytes }
            var accepted: [Pending] = []
            accepted.reserveCapacity(batch.count)
            for p in batch {
                let size = Frame.headerSize + p.payload.count + (segmentCipher == nil ? 0 : RecordCipher.tagSize)
                if p.kind.mayExceedCap || used + size <= cap {
                    used += size
                    accepted.append(p)
                } else {
                    p.continuation.resume(throwing: StorageError(
                        code: .journalFull,
                        message: "The journal in \(directory) has reached its disk cap of \(cap) bytes (\(used) in use); nothing was written. Space comes back as delivered records are compacted away; deliver what is queued, or raise the cap."))
                }
            }
            batch = accepted
            if batch.isEmpty { return }
        }
        // A record that starts a segment ends the run before it: each run goes to one segment.
        var start = 0
        while start < batch.count {
            var end = start + 1
            while end < batch.count && !batch[end].kind.startsSegment { end += 1 }
            do {
                // The first write after a failure waits for its fdatasync, whatever the mode:
                // only a successful one shows that the journal writes durably again.
                let recovering = failed
                try writeRun(batch[start..<end], newSegment: batch[start].kind.startsSegment, forceSync: recovering, buffer: &buffer)
                if recovering { writesAgain() }
            } catch {
                fail(error, batch: Array(batch[start...]))
                return
            }
            start = end
        }
    }

    /// Writes one run of records to the active segment (after starting a new one when it is full
    /// or `newSegment` asks for it), makes it durable as the mode says, and resumes the callers.
    /// When it throws, nothing of the run was acknowledged and its sequence numbers are free again.
    private func writeRun(_ run: ArraySlice<Pending>, newSegment: Bool, forceSync: Bool, buffer: inout [UInt8]) throws {
        let firstSequence = nextSequence
        var done = false
        defer { if !done { nextSequence = firstSequence } }
        if segmentBytes >= segmentLimit || (newSegment && segmentBytes > recordStart) || rekeyBeforeWrite {
            if unsyncedSince != nil || !unsynced.isEmpty { try sync() }
            try startSegment()
        }
        buffer.removeAll(keepingCapacity: true)
        var locations: [JournalLocation] = []
        locations.reserveCapacity(run.count)
        for p in run {
            locations.append(JournalLocation(sequence: nextSequence, segment: segmentName, offset: segmentBytes + buffer.count))
            if let cipher = segmentCipher {
                try cipher.encode(type: p.type, sequence: nextSequence, payload: p.payload, offset: segmentBytes + buffer.count, into: &buffer)
            } else {
                Frame.encode(type: p.type, sequence: nextSequence, payload: p.payload, into: &buffer)
            }
            nextSequence += 1
        }
        // At the tracked offset: the descriptor is positioned there (never O_APPEND, since the
        // preallocated segment's end is not where records end).
        try io.writeAll(segmentFD, buffer)
        segmentBytes += buffer.count
        segmentAllocated = max(segmentAllocated, segmentBytes)
        state.withLock { [count = buffer.count, reserved = reservedBytes, segmentBytes] in
            $0.diskBytes += count
            $0.reserved = reserved
            $0.activeBytes = segmentBytes
        }
        options.observer?.appended(records: run.count, bytes: buffer.count)
        let now = ContinuousClock.now
        var wantsSync: Bool
        switch options.durability {
        case .strict:
            wantsSync = !run.allSatisfy { $0.kind.defersSync }
        case .relaxed(let interval):
            wantsSync = run.contains(where: \.kind.alwaysDurable) || now - (unsyncedSince ?? now) >= interval
        }
        wantsSync = wantsSync || forceSync || unsynced.count + buffer.count > Journal.maxUnsyncedBytes
        if wantsSync {
            try sync()
        } else {
            unsynced.append(contentsOf: buffer)
            if unsyncedSince == nil { unsyncedSince = now }
        }
        done = true
        if let last = locations.last { lastAcknowledged = (last.offset, last.sequence) }
        for (p, location) in zip(run, locations) { p.continuation.resume(returning: location) }
    }

    /// `duration` for a semaphore wait, at most a day (a longer sync interval then syncs early).
    static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        guard duration > .zero else { return .nanoseconds(0) }
        guard duration < .seconds(86_400) else { return .seconds(86_400) }
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}

// The submission queue's actor runs on a thread of its own. Its methods make blocking file calls
// (a body read back to be sent, an export, a compaction, a purge); on a default actor they would
// run on whichever thread holds the actor, which can be a caller's event loop when a task that
// prefers one enters it, or one of the concurrency pool's few threads. On its own thread they
// block neither, whatever the calling task prefers.

import Dispatch
import Foundation
import Synchronization

/// A serial executor that runs its jobs in order on one thread, started when it is made and
/// ended by ``finish(waitingAtMost:)`` (or when it is released), after the jobs already given to it.
/// A job given to it after that runs on a thread started for it, which ends once nothing is left
/// to run: the queue's owner can stop the thread when it stops, and a late call still runs.
final class QueueExecutor: SerialExecutor, @unchecked Sendable {
    private struct State {
        var jobs: [UnownedJob] = []
        var first = 0
        var finished = false
        /// A thread runs the jobs (or waits for them).
        var threadRunning = false
        /// Called when no thread runs any more (``finish(waitingAtMost:)``), by key.
        var endWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    /// The jobs waiting, shared with the thread; the executor itself is not retained by it, so
    /// that releasing the actor (and with it the executor) ends the thread.
    private final class Shared: Sendable {
        let state = Mutex(State())
        let wakeup = DispatchSemaphore(value: 0)
        let name: String
        init(name: String) { self.name = name }
    }

    private let shared: Shared

    init(name: String) {
        shared = Shared(name: name)
        shared.state.withLock { $0.threadRunning = true }
        Self.startThread(shared, executor: UnownedSerialExecutor(ordinary: self))
    }

    deinit { finishSoon() }

    /// Lets the thread end once the jobs given so far have run, without waiting for it.
    func finishSoon() {
        shared.state.withLock { $0.finished = true }
        shared.wakeup.signal()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let start = shared.state.withLock { s in
            s.jobs.append(job)
            guard !s.threadRunning else { return false }
            s.threadRunning = true
            return true
        }
        if start {
            Self.startThread(shared, executor: UnownedSerialExecutor(ordinary: self))
        } else {
            shared.wakeup.signal()
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread end once the jobs given so far have run, and waits for that at most
    /// `limit`, without holding a thread. Returns whether no thread runs any more.
    @discardableResult
    func finish(waitingAtMost limit: Duration) async -> Bool {
        let shared = self.shared
        let running = shared.state.withLock { s in
            s.finished = true
            return s.threadRunning
        }
        guard running else { return true }
        shared.wakeup.signal()
        let key = shared.state.withLock { s in
            defer { s.nextWaiter += 1 }
            return s.nextWaiter
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            shared.state.withLock { $0.endWaiters.removeValue(forKey: key) }?.resume()
        }
        await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
            let waiting = shared.state.withLock { s in
                guard s.threadRunning else { return false }
                s.endWaiters[key] = ended
                return true
            }
            if !waiting { ended.resume() }
        }
        timer.cancel()
        return !threadRunning
    }

    /// Whether a thread of this executor runs (or waits for jobs).
    var threadRunning: Bool { shared.state.withLock { $0.threadRunning } }

    private static func startThread(_ shared: Shared, executor: UnownedSerialExecutor) {
        let thread = Thread {
            while let job = Self.next(shared) {
                job.runSynchronously(on: executor)
            }
        }
        thread.name = shared.name
        thread.start()
    }

    /// The next job, waiting for one; nil (and the thread no longer counted) once the executor is
    /// finished and nothing is left.
    private static func next(_ shared: Shared) -> UnownedJob? {
        while true {
            let (taken, ended): (UnownedJob??, [CheckedContinuation<Void, Never>]) = shared.state.withLock { s in
                if s.first < s.jobs.count {
                    defer {
                        s.first += 1
                        if s.first == s.jobs.count {
                            s.jobs.removeAll(keepingCapacity: true)
                            s.first = 0
                        }
                    }
                    return (.some(s.jobs[s.first]), [])
                }
                guard s.finished else { return (nil, []) }
                s.threadRunning = false
                defer { s.endWaiters = [:] }
                return (.some(nil), Array(s.endWaiters.values))
            }
            for waiter in ended { waiter.resume() }
            if let taken { return taken }
            shared.wakeup.wait()
        }
    }
}

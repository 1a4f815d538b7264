// The submission queue's actor runs on a thread of its own. Its methods make blocking file calls
// (a body read back to be sent, an export, a compaction, a purge); on a default actor they would
// run on whichever thread holds the actor, which can be a caller's event loop when a task that
// prefers one enters it, or one of the concurrency pool's few threads. On its own thread they
// block neither, whatever the calling task prefers.

import Dispatch
import Foundation
import Synchronization

/// A serial executor that runs its jobs in order on one thread, started when it is made and
/// ended when it is released (after the jobs already given to it).
final class QueueExecutor: SerialExecutor, @unchecked Sendable {
    private struct State {
        var jobs: [UnownedJob] = []
        var first = 0
        var released = false
    }

    /// The jobs waiting, shared with the thread; the executor itself is not retained by it, so
    /// that releasing the actor (and with it the executor) ends the thread.
    private final class Shared: Sendable {
        let state = Mutex(State())
        let wakeup = DispatchSemaphore(value: 0)
    }

    private let shared = Shared()

    init(name: String) {
        let shared = shared
        let executor = UnownedSerialExecutor(ordinary: self)
        let thread = Thread {
            while let job = Self.next(shared) {
                job.runSynchronously(on: executor)
            }
        }
        thread.name = name
        thread.start()
    }

    deinit {
        shared.state.withLock { $0.released = true }
        shared.wakeup.signal()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        shared.state.withLock { $0.jobs.append(job) }
        shared.wakeup.signal()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// The next job, waiting for one; nil once the executor was released and nothing is left.
    private static func next(_ shared: Shared) -> UnownedJob? {
        while true {
            let taken: UnownedJob?? = shared.state.withLock { s in
                if s.first < s.jobs.count {
                    defer {
                        s.first += 1
                        if s.first == s.jobs.count {
                            s.jobs.removeAll(keepingCapacity: true)
                            s.first = 0
                        }
                    }
                    return .some(s.jobs[s.first])
                }
                return s.released ? .some(nil) : nil
            }
            if let taken { return taken }
            shared.wakeup.wait()
        }
    }
}

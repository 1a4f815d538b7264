import NIOCore

/// A NIO event loop as a task executor: a connection's task that prefers it runs its request
/// handling (and the default actors it calls) on the loop that reads and writes the connection,
/// so an answer does not hop between the loop and the concurrency pool's threads. The loop must
/// outlive every task that prefers it (the daemon's loops live as long as the process): NIO drops
/// a job enqueued after its loop has shut down, and the task would never resume.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }
}

/// Runs `work` preferring the concurrency pool, whatever executor the caller's task prefers: for
/// work that must not run on an event loop (file work, replies whose size grows with the queue)
/// when it is called from a request handled on one.
func onPool<T, Failure: Error>(_ work: () async throws(Failure) -> T) async throws(Failure) -> T {
    try await withTaskExecutorPreference(globalConcurrentExecutor, operation: work)
}

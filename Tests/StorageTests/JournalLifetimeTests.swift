#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Logging
import Storage
import SurveyTesting
import Synchronization
import Testing

/// A journal's lifetime as its owner sees it: the writer thread does not keep it alive, a journal
/// let go without `close()` is caught in debug builds, and closing holds no thread of the caller's.
@Suite(.timeLimit(.minutes(5))) struct JournalLifetimeTests {
    @Test func aClosedJournalIsReleasedAndItsWriterEnds() async throws {
        let dir = try TemporaryDirectory(prefix: "jl")
        defer { dir.remove() }
        weak var released: Journal?
        do {
            let journal = try Journal(directory: dir.path, logger: Logger(label: "t"))
            released = journal
            _ = try await journal.append(type: 1, payload: [1, 2, 3])
            #expect(journal.writerThreadRunning)
            await journal.close()
            #expect(!journal.writerThreadRunning)
        }
        #expect(released == nil, "nothing else holds a closed journal: not its writer thread")
        // Its lock was released: the directory opens again with what was written.
        let reopened = try Journal(directory: dir.path, logger: Logger(label: "t"))
        #expect(reopened.recovered.map(\.payload) == [[1, 2, 3]])
        await reopened.close()
    }

    /// Before, the writer thread held the journal, so an unclosed one was never released and no
    /// check could see it.
    @Test(.enabled(if: _isDebugAssertConfiguration(), "the check is an assertion: only debug builds trap"))
    func aJournalReleasedWithoutCloseTrapsInADebugBuild() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = try TemporaryDirectory(prefix: "jlt")
            defer { dir.remove() }
            weak var released: Journal?
            do {
                // Opened and let go: its writer waits for an append, holding nothing, so the
                // release (and the trap that ends this process) comes as the scope ends.
                let journal = try Journal(directory: dir.path, logger: Logger(label: "t"))
                released = journal
            }
            // A journal its writer thread kept would never be released: this process exits 0.
            for _ in 0..<3000 where released != nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("was released without close()"), "\(stderr.suffix(2000))")
    }

    /// The close of a journal whose last fdatasync is held up does not hold the thread that
    /// awaits it: on an executor of one thread, another task runs meanwhile (and lets the sync go).
    @Test func closingHoldsNoThreadOfTheCaller() async throws {
        let dir = try TemporaryDirectory(prefix: "jlc")
        defer { dir.remove() }
        let gate = SyncGate()
        var options = JournalOptions()
        options.durability = .relaxed(syncInterval: .seconds(3600))
        let system = options.fileOperations
        options.fileOperations.fdatasync = { fd in
            gate.waitIfClosed()
            return system.fdatasync(fd)
        }
        let journal = try Journal(directory: dir.path, options: options, logger: Logger(label: "t"))
        // Acknowledged before its fdatasync (relaxed): the close makes it durable.
        _ = try await journal.append(type: 1, payload: [7])
        gate.close()
        let executor = OneThreadExecutor()
        defer { executor.stop() }
        let released = try await withTaskExecutorPreference(executor) {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask { await journal.close(); return false }
                group.addTask {
                    // Runs only if the close left the executor's one thread free.
                    gate.open()
                    return true
                }
                var released = false
                for try await opened in group { released = released || opened }
                return released
            }
        }
        #expect(released)
        #expect(!gate.timedOut, "the close held the one thread until the gate gave up")
        #expect(!journal.writerThreadRunning)
    }
}

/// Holds fdatasync calls while closed, for at most 10 seconds.
private final class SyncGate: Sendable {
    private let state = Mutex<(closed: Bool, timedOut: Bool)>((false, false))
    private let opened = DispatchSemaphore(value: 0)
    var timedOut: Bool { state.withLock { $0.timedOut } }
    func close() { state.withLock { $0.closed = true } }
    func open() {
        state.withLock { $0.closed = false }
        opened.signal()
    }
    func waitIfClosed() {
        guard state.withLock({ $0.closed }) else { return }
        if opened.wait(timeout: .now() + 10) == .timedOut { state.withLock { $0.timedOut = true } }
    }
}

/// A task executor with one thread.
private final class OneThreadExecutor: TaskExecutor, Sendable {
    private final class Jobs: Sendable {
        let state = Mutex<(queue: [UnownedJob], stopped: Bool)>(([], false))
        let wakeup = DispatchSemaphore(value: 0)
    }
    private let jobs = Jobs()

    init() {
        let jobs = self.jobs
        let executor = UnownedTaskExecutor(ordinary: self)
        let thread = Thread {
            while true {
                let next: UnownedJob?? = jobs.state.withLock { s in
                    if !s.queue.isEmpty { return .some(s.queue.removeFirst()) }
                    return s.stopped ? .some(nil) : nil
                }
                switch next {
                case .some(.some(let job)): job.runSynchronously(on: executor)
                case .some(.none): return
                case .none: jobs.wakeup.wait()
                }
            }
        }
        thread.name = "one-thread-executor"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.state.withLock { $0.queue.append(job) }
        jobs.wakeup.signal()
    }

    func stop() {
        jobs.state.withLock { $0.stopped = true }
        jobs.wakeup.signal()
    }
}

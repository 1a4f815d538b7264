import Foundation

/// Log lines on their way to a sink that may block (stderr: a full pipe, a stalled journald),
/// without the logging thread ever waiting for it.
///
/// ``enqueue(_:)`` appends the finished line to a bounded buffer under a short lock (no I/O is
/// done under it, and the writer thread is woken only when it sleeps) and returns. One thread of
/// the writer's own takes every pending line at once and hands them to the sink in order. When
/// the buffer is full, a new line is dropped and counted: the sink is given a line of its own
/// saying how many once the lines before them are written, and ``droppedLines`` counts them all
/// (`surveyd_log_lines_dropped_total`). ``flush(timeout:)`` waits, for a bounded time, until
/// every line enqueued before it is written: the process calls it before it exits.
///
/// The thread starts with the first line and lives until ``stop(timeout:)``: the process's own
/// writer (``standardError``) is never stopped; every other writer is stopped by its owner.
public final class LogLineWriter: @unchecked Sendable {
    // Every stored property below `condition` is guarded by it. Its timed waits (``flush(timeout:)``,
    // ``stop(timeout:)``) run on the monotonic clock: a step of the wall clock changes neither.
    private let condition = MonotonicCondition()
    private var pending: [String] = []
    private var spare: [String] = []
    /// Lines dropped since the last notice was written.
    private var droppedSinceNotice = 0
    private var droppedTotal = 0
    /// The writer thread holds lines it took and has not finished writing.
    private var writing = false
    private var sleeping = false
    private var started = false
    /// ``stop(timeout:)`` was called: the thread ends once it has written what is pending.
    private var stopping = false
    /// The writer's thread runs (from the first line until it has stopped).
    private var threadRunning = false

    /// How many lines wait at most; more are dropped.
    public let capacity: Int
    let sink: @Sendable (String) -> Void
    let notice: @Sendable (Int) -> String

    /// - Parameters:
    ///   - capacity: the most lines that wait for the sink.
    ///   - notice: the line that tells that `count` lines were dropped.
    ///   - sink: writes one line; it may block, only the writer's thread calls it.
    public init(capacity: Int = 4096, notice: @escaping @Sendable (Int) -> String = LogLineWriter.plainNotice, sink: @escaping @Sendable (String) -> Void) {
        precondition(capacity > 0, "a log line writer needs room for one line")
        self.capacity = capacity
        self.notice = notice
        self.sink = sink
    }

    /// The process's writer to stderr, which ``DaemonLogHandler`` enqueues to; its drop notice is
    /// a warning in the handler's format (with the journal's priority prefix when stderr is the
    /// journal).
    public static let standardError: LogLineWriter = {
        let journal = DaemonLogHandler.standardErrorIsJournal(environment: ProcessInfo.processInfo.environment)
        return LogLineWriter(notice: { count in DaemonLogHandler.noticeLine(droppedLines: count, journal: journal) }, sink: DaemonLogHandler.writeToStandardError)
    }()

    /// The drop notice's text.
    public static func noticeText(_ count: Int) -> String {
        "\(count) log lines dropped: stderr was not accepting them"
    }

    /// The notice as a bare line.
    public static let plainNotice: @Sendable (Int) -> String = { count in noticeText(count) + "\n" }

    /// Hands `line` to the writer thread; drops and counts it when `capacity` lines wait.
    /// Returns whether the line was kept. Never waits for the sink.
    @discardableResult
    public func enqueue(_ line: String) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else {
            droppedTotal += 1
            return false
        }
        guard pending.count < capacity else {
            droppedSinceNotice += 1
            droppedTotal += 1
            return false
        }
        pending.append(line)
        if !started {
            started = true
            threadRunning = true
            let thread = Thread { [self] in drain() }
            thread.name = "log-writer"
            thread.start()
        }
        if sleeping { condition.broadcast() }
        return true
    }

    /// Writes what is pending, then ends the writer's thread, waiting at most `timeout` for
    /// both. Lines enqueued after it are dropped and counted. Returns whether the thread has ended.
    @discardableResult
    public func stop(timeout: Duration) -> Bool {
        let deadline = MonotonicCondition.deadline(after: timeout)
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        while threadRunning {
            if !condition.wait(until: deadline) { return !threadRunning }
        }
        return true
    }

    /// Whether the writer's thread runs.
    public var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return threadRunning
    }

    /// The lines dropped since the writer was made.
    public var droppedLines: Int {
        condition.lock()
        defer { condition.unlock() }
        return droppedTotal
    }

    /// Waits until every line enqueued so far (and the notice of any dropped) is written, or
    /// `timeout` has passed. Returns whether everything was written.
    @discardableResult
    public func flush(timeout: Duration) -> Bool {
        let deadline = MonotonicCondition.deadline(after: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !pending.isEmpty || droppedSinceNotice > 0 || writing {
            if !condition.wait(until: deadline) {
                return pending.isEmpty && droppedSinceNotice == 0 && !writing
            }
        }
        return true
    }

    /// The writer thread: takes all pending lines, writes them outside the lock, then the notice
    /// of the lines dropped meanwhile (they came after the ones taken, which filled the buffer).
    private func drain() {
        condition.lock()
        while true {
            while pending.isEmpty && droppedSinceNotice == 0 {
                if stopping {
                    threadRunning = false
                    condition.broadcast()
                    condition.unlock()
                    return
                }
                sleeping = true
                condition.wait()
                sleeping = false
            }
            swap(&pending, &spare)
            let dropped = droppedSinceNotice
            droppedSinceNotice = 0
            writing = true
            condition.unlock()
            for line in spare { sink(line) }
            if dropped > 0 { sink(notice(dropped)) }
            condition.lock()
            spare.removeAll(keepingCapacity: true)
            writing = false
            condition.broadcast()
        }
    }
}

#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#endif
public import Foundation
import Subprocess
import Synchronization
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// A long-running child process for end-to-end tests and benchmarks (a server, the daemon): its
/// output is collected line by line as it comes, it is killed with SIGKILL when its deadline
/// passes (or when the last reference to it goes), and `stop` ends it.
public final class BackgroundProcess: Sendable {
    public let name: String
    /// The process id, e.g. to read `/proc/PID`.
    public let pid: Int32
    private let stdout: OutputLines
    private let stderr: OutputLines
    private let exit: ExitStatus
    /// Signals for the child, sent through its process descriptor while it runs.
    private let signals: AsyncStream<Int32>.Continuation
    private let watchdog: Task<Void, Never>

    private init(name: String, pid: Int32, stdout: OutputLines, stderr: OutputLines, exit: ExitStatus, signals: AsyncStream<Int32>.Continuation, deadline: Duration) {
        self.name = name
        self.pid = pid
        self.stdout = stdout
        self.stderr = stderr
        self.exit = exit
        self.signals = signals
        watchdog = Task { [signals, exit] in
            guard (try? await Task.sleep(for: deadline)) != nil else { return }
            // Also once its outputs have ended: a child that closed them lives on until killed.
            Self.deliver(SIGKILL, to: pid, through: signals, unless: exit)
        }
    }

    /// Sends `signal` through the child's process descriptor while its outputs are read, and by
    /// pid once they have ended while it has not exited (it is exiting, or it closed its outputs
    /// and lives on); nothing once its exit status is in.
    private static func deliver(_ signal: Int32, to pid: Int32, through signals: AsyncStream<Int32>.Continuation, unless exit: ExitStatus) {
        guard exit.status == nil else { return }
        switch signals.yield(signal) {
        case .enqueued: break
        default: kill(pid, signal)
        }
    }

    /// Starts `executable` (in `currentDirectory` when given) with this process's environment and
    /// `environment` on top; it is killed at the latest after `deadline`.
    public static func start(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil, deadline: Duration = .seconds(120)) async throws -> BackgroundProcess {
        let stdout = OutputLines()
        let stderr = OutputLines()
        let exit = ExitStatus()
        let (signals, signalling) = AsyncStream<Int32>.makeStream()
        let (started, starting) = AsyncStream<Result<Int32, any Error>>.makeStream()
        let configuration = Configuration(
            executable: .path(FilePath(executable.path)), arguments: Arguments(arguments), environment: try inheritedEnvironment(environment),
            workingDirectory: currentDirectory.map { FilePath($0.path) })
        // The child's whole life, from spawn to the end of its output and its exit status.
        Task.detached {
            do {
                let result = try await Subprocess.run(configuration, input: .none, output: .sequence, error: .sequence) { execution in
                    starting.yield(.success(execution.processIdentifier.value))
                    starting.finish()
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask { await stdout.collect(execution.standardOutput) }
                        group.addTask { await stderr.collect(execution.standardError) }
                        group.addTask {
                            for await signal in signals { try? execution.send(signal: Signal(rawValue: signal)) }
                        }
                        // Both outputs ended: the child is gone (or closed them); signals after this go by pid.
                        await group.next()
                        await group.next()
                        signalling.finish()
                    }
                }
                exit.record(result.terminationStatus.shellStatus)
            } catch {
                starting.yield(.failure(error))
                starting.finish()
                stdout.close()
                stderr.close()
                exit.record(-1)
            }
        }
        var iterator = started.makeAsyncIterator()
        guard let outcome = await iterator.next() else {
            throw ChildProcessError("\(executable.path) did not start")
        }
        let pid = try outcome.get()
        return BackgroundProcess(name: executable.lastPathComponent, pid: pid, stdout: stdout, stderr: stderr, exit: exit, signals: signalling, deadline: deadline)
    }

    deinit {
        watchdog.cancel()
        if exit.status == nil { send(SIGKILL) }
    }

    /// What it printed to stdout so far.
    public var output: String { stdout.text }
    /// What it printed to stderr so far.
    public var errorOutput: String { stderr.text }
    /// True until its exit status is known.
    public var isRunning: Bool { exit.status == nil }
    /// Its exit status (128 + the signal when a signal ended it), nil while it runs.
    public var status: Int32? { exit.status }

    /// Sends `signal` to the child (nothing once it has exited).
    public func send(_ signal: Int32) {
        Self.deliver(signal, to: pid, through: signals, unless: exit)
    }

    /// Waits until a line of stdout (or stderr) contains `text`; returns that line.
    public func waitForLine(containing text: String, onStandardError: Bool = false, timeout: Duration = .seconds(30)) async throws -> String {
        let collector = onStandardError ? stderr : stdout
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        while clock.now < end {
            if let line = collector.lines.first(where: { $0.contains(text) }) { return line }
            if let status = exit.status, collector.closed {
                throw ChildProcessError("\(name) exited (status \(status)) before printing \"\(text)\"; stderr: \(stderr.text)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ChildProcessError("\(name) did not print \"\(text)\" within \(timeout); stdout: \(stdout.text) stderr: \(stderr.text)")
    }

    /// Waits for the process to exit by itself (SIGKILL after `timeout`); returns the exit status.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Int32 {
        if await exit.wait(for: timeout) == nil { send(SIGKILL) }
        watchdog.cancel()
        // SIGKILL cannot be refused: its status follows (the deadline bounds this wait too).
        return await exit.wait(for: .seconds(30)) ?? -1
    }

    /// Sends `signal` and waits for the exit; SIGKILL after `grace`. Returns the exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, grace: Duration = .seconds(15)) async -> Int32 {
        send(signal)
        return await waitForExit(timeout: grace)
    }
}

/// One output stream of a child, collected as it comes.
final class OutputLines: Sendable {
    private struct State {
        var data: [UInt8] = []
        var closed = false
    }
    private let state = Mutex(State())

    func collect(_ sequence: SubprocessOutputSequence) async {
        do {
            for try await buffer in sequence {
                buffer.withUnsafeBytes { bytes in state.withLock { $0.data.append(contentsOf: bytes) } }
            }
        } catch {
            // A read error ends the stream like its end would.
        }
        close()
    }

    func close() { state.withLock { $0.closed = true } }

    var bytes: [UInt8] { state.withLock { $0.data } }
    var text: String { state.withLock { String(decoding: $0.data, as: UTF8.self) } }
    /// The lines written whole so far; the last one without its newline only once the stream has
    /// ended (a line still being written, e.g. `listening on 127.0.0.1:4` of port 41235, is not
    /// taken for what it will be).
    var lines: [String] {
        let (text, closed) = state.withLock { (String(decoding: $0.data, as: UTF8.self), $0.closed) }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if !closed || lines.last == "" { lines.removeLast() }
        return lines.filter { !$0.isEmpty }
    }
    var closed: Bool { state.withLock { $0.closed } }
}

/// A child's exit status, once known.
final class ExitStatus: Sendable {
    private let value = Mutex<Int32?>(nil)

    func record(_ status: Int32) { value.withLock { $0 = status } }

    var status: Int32? { value.withLock { $0 } }

    /// The status, waiting for it at most `timeout`; nil when it is not known by then.
    func wait(for timeout: Duration) async -> Int32? {
        _ = await holds(by: ContinuousClock.now.advanced(by: timeout)) { status != nil }
        return status
    }
}

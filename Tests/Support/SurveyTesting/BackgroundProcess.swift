import Foundation

/// A long-running child process for end-to-end tests (a server, the daemon): its output is
/// collected line by line, it is killed with SIGKILL when its deadline passes, and `stop` ends it.
public final class BackgroundProcess: @unchecked Sendable {
    public let process: Process
    public let name: String
    private let stdout: LineCollector
    private let stderr: LineCollector
    private let watchdog: Task<Void, Never>

    /// Starts `executable` (in `currentDirectory` when given); it is killed at the latest after `deadline`.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil, deadline: Duration = .seconds(120)) throws {
        let process = Process()
        process.executableURL = executable
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        self.process = process
        self.name = executable.lastPathComponent
        stdout = LineCollector(out.fileHandleForReading)
        stderr = LineCollector(err.fileHandleForReading)
        try process.run()
        let pid = process.processIdentifier
        watchdog = Task {
            try? await Task.sleep(for: deadline)
            if !Task.isCancelled { kill(pid, SIGKILL) }
        }
    }

    deinit {
        watchdog.cancel()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    public var output: String { stdout.text }
    /// The process id, e.g. to send it signals.
    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    public var errorOutput: String { stderr.text }

    /// Waits until a line of stdout (or stderr) contains `text`; returns that line.
    public func waitForLine(containing text: String, onStandardError: Bool = false, timeout: Duration = .seconds(30)) async throws -> String {
        let collector = onStandardError ? stderr : stdout
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        while clock.now < end {
            if let line = collector.lines.first(where: { $0.contains(text) }) { return line }
            if !process.isRunning, collector.closed {
                throw Failure(description: "\(name) exited (status \(process.terminationStatus)) before printing \"\(text)\"; stderr: \(stderr.text)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure(description: "\(name) did not print \"\(text)\" within \(timeout); stdout: \(stdout.text) stderr: \(stderr.text)")
    }

    /// Waits for the process to exit by itself (SIGKILL after `timeout`); returns the exit status.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Int32 {
        _ = await SurveyTesting.waitForExit(process, deadline: timeout)
        watchdog.cancel()
        return process.terminationStatus
    }

    /// Sends `signal` and waits for the exit; SIGKILL after `grace`. Returns the exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, grace: Duration = .seconds(15)) async -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        _ = await SurveyTesting.waitForExit(process, deadline: grace)
        watchdog.cancel()
        return process.terminationStatus
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }
}

/// Collects a pipe's output on a background thread, split into lines.
final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var isClosed = false

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { data.append(chunk) }
            }
            lock.withLock { isClosed = true }
        }
        thread.start()
    }

    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    var lines: [String] { text.split(separator: "\n").map(String.init) }
    var closed: Bool { lock.withLock { isClosed } }
}

import Foundation

/// The result of running a child process to completion.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// True when the deadline passed and the process was killed.
    public var timedOut: Bool
}

/// Runs an executable with arguments, optional stdin and environment, and a hard deadline.
///
/// The process is killed with SIGKILL when the deadline passes; the call never hangs longer
/// than the deadline plus a short grace period.
public func runProcess(
    _ executable: URL,
    _ arguments: [String],
    stdin: String? = nil,
    environment: [String: String]? = nil,
    currentDirectory: URL? = nil,
    deadline: Duration = .seconds(60)
) async throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    process.arguments = arguments
    if let environment {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let outPipe = Pipe()
    let errPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errPipe
    let inPipe = Pipe()
    process.standardInput = inPipe

    let outBox = OutputCollector(outPipe.fileHandleForReading)
    let errBox = OutputCollector(errPipe.fileHandleForReading)
    try process.run()
    if let stdin {
        inPipe.fileHandleForWriting.write(Data(stdin.utf8))
    }
    try? inPipe.fileHandleForWriting.close()

    let timedOut = await waitForExit(process, deadline: deadline)
    let out = await outBox.finish()
    let err = await errBox.finish()
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: out, as: UTF8.self),
        stderr: String(decoding: err, as: UTF8.self),
        timedOut: timedOut
    )
}

/// Waits for `process` to exit; kills it with SIGKILL once `deadline` has passed.
/// Returns true when it had to be killed.
public func waitForExit(_ process: Process, deadline: Duration) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: deadline)
    while process.isRunning {
        if clock.now >= end {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return true
        }
        try? await Task.sleep(for: .milliseconds(10))
    }
    process.waitUntilExit()
    return false
}

/// Drains a pipe on a background thread so that a chatty child never blocks on a full pipe.
final class OutputCollector: @unchecked Sendable {
    private let handle: FileHandle
    private let lock = NSLock()
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        self.handle = handle
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { data.append(chunk) }
            }
            done.signal()
        }
        thread.start()
    }

    func finish() async -> Data {
        await OwnThread.run { [done] in done.wait() }
        return lock.withLock { data }
    }
}

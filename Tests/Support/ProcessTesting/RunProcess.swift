#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
public import Foundation
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// The result of running a child process to completion.
public struct ProcessResult: Sendable {
    /// The exit code, or 128 + the signal that ended it.
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// True when the deadline passed and the process was killed.
    public var timedOut: Bool
    /// True when its output was still open ``runProcess(_:_:stdin:environment:currentDirectory:deadline:)``'s
    /// grace after the kill: another process it started (a grandchild) held its pipes, and
    /// `stdout` and `stderr` are what was read by then.
    public var outputHeldOpen = false

    public init(status: Int32, stdout: String, stderr: String, timedOut: Bool, outputHeldOpen: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.timedOut = timedOut
        self.outputHeldOpen = outputHeldOpen
    }
}

/// How long, after the deadline's SIGKILL, ``runProcess(_:_:stdin:environment:currentDirectory:deadline:)``
/// waits for the child's output to end before it returns without the rest (a grandchild that
/// inherited the pipes holds them open as long as it lives).
public let outputGraceAfterKill: Duration = .seconds(5)

/// Runs `executable` with `arguments`, optional stdin and extra environment (on top of this
/// process's), and a hard deadline: the child is killed with SIGKILL once `deadline` has passed.
/// Its output is read to the end (until every holder of its pipes has closed them), or, past the
/// deadline, for at most ``outputGraceAfterKill`` more: every wait here is bounded, and a
/// grandchild still holding the pipes then is reported (``ProcessResult/outputHeldOpen``).
public func runProcess(
    _ executable: URL,
    _ arguments: [String],
    stdin: String? = nil,
    environment: [String: String]? = nil,
    currentDirectory: URL? = nil,
    deadline: Duration = .seconds(60)
) async throws -> ProcessResult {
    let result = try await Subprocess.run(
        .path(FilePath(executable.path)),
        arguments: Arguments(arguments),
        environment: try inheritedEnvironment(environment ?? [:]),
        workingDirectory: currentDirectory.map { FilePath($0.path) },
        input: .inputWriter,
        output: .sequence,
        error: .sequence
    ) { execution in
        // The readers are tasks of their own, not children of this call: a grandchild holding
        // the pipes cannot hold this call past its bound (what they read by then is returned).
        let output = OutputLines()
        let error = OutputLines()
        let readers = [
            Task { await output.collect(execution.standardOutput) },
            Task { await error.collect(execution.standardError) },
        ]
        let writer = Task {
            // A child that exits without reading its input makes the write fail: that is its business.
            if let stdin { _ = try? await execution.standardInputWriter.write(stdin) }
            try? await execution.standardInputWriter.finish()
        }
        let clock = ContinuousClock()
        var timedOut = false
        var heldOpen = false
        if !(await outputsEnd(output, error, by: clock.now.advanced(by: deadline))) {
            timedOut = true
            try? execution.send(signal: .kill)
            heldOpen = !(await outputsEnd(output, error, by: clock.now.advanced(by: outputGraceAfterKill)))
        }
        writer.cancel()
        if heldOpen { for reader in readers { reader.cancel() } }
        return (output.bytes, error.bytes, timedOut, heldOpen)
    }
    let (output, error, timedOut, heldOpen) = result.closureResult
    return ProcessResult(
        status: result.terminationStatus.shellStatus,
        stdout: String(decoding: output, as: UTF8.self),
        stderr: String(decoding: error, as: UTF8.self),
        timedOut: timedOut,
        outputHeldOpen: heldOpen
    )
}

/// Whether both outputs ended by `end`.
func outputsEnd(_ output: OutputLines, _ error: OutputLines, by end: ContinuousClock.Instant) async -> Bool {
    await holds(by: end) { output.closed && error.closed }
}

/// Whether `condition` holds by `end`, looked at every 10 ms: the bounded wait of this module.
func holds(by end: ContinuousClock.Instant, _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    while !condition() {
        if clock.now >= end { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}

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
}

/// Runs `executable` with `arguments`, optional stdin and extra environment (on top of this
/// process's), and a hard deadline: the child is killed with SIGKILL once `deadline` has passed.
/// Its output is read to the end (until every holder of its pipes has closed them).
public func runProcess(
    _ executable: URL,
    _ arguments: [String],
    stdin: String? = nil,
    environment: [String: String]? = nil,
    currentDirectory: URL? = nil,
    deadline: Duration = .seconds(60)
) async throws -> ProcessResult {
    enum Part: Sendable {
        case output([UInt8])
        case error([UInt8])
        case done
        case killed
    }
    let result = try await Subprocess.run(
        .path(FilePath(executable.path)),
        arguments: Arguments(arguments),
        environment: try inheritedEnvironment(environment ?? [:]),
        workingDirectory: currentDirectory.map { FilePath($0.path) },
        input: .inputWriter,
        output: .sequence,
        error: .sequence
    ) { execution in
        try await withThrowingTaskGroup(of: Part.self) { group in
            group.addTask { .output(try await readToEnd(execution.standardOutput)) }
            group.addTask { .error(try await readToEnd(execution.standardError)) }
            group.addTask {
                // A child that exits without reading its input makes the write fail: that is its business.
                if let stdin { _ = try? await execution.standardInputWriter.write(stdin) }
                try? await execution.standardInputWriter.finish()
                return .done
            }
            group.addTask {
                do {
                    try await Task.sleep(for: deadline)
                } catch {
                    return .done
                }
                try? execution.send(signal: .kill)
                return .killed
            }
            var output: [UInt8] = []
            var error: [UInt8] = []
            var timedOut = false
            var finished = 0
            while finished < 3, let part = try await group.next() {
                switch part {
                case .output(let bytes): output = bytes; finished += 1
                case .error(let bytes): error = bytes; finished += 1
                case .done: finished += 1
                case .killed: timedOut = true
                }
            }
            // The watchdog, unless it fired: the child is done.
            group.cancelAll()
            while let part = try await group.next() {
                if case .killed = part { timedOut = true }
            }
            return (output, error, timedOut)
        }
    }
    let (output, error, timedOut) = result.closureResult
    return ProcessResult(
        status: result.terminationStatus.shellStatus,
        stdout: String(decoding: output, as: UTF8.self),
        stderr: String(decoding: error, as: UTF8.self),
        timedOut: timedOut
    )
}

/// Every byte of one of a child's output streams, until its end.
func readToEnd(_ sequence: SubprocessOutputSequence) async throws -> [UInt8] {
    var bytes: [UInt8] = []
    for try await buffer in sequence {
        buffer.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }
    return bytes
}

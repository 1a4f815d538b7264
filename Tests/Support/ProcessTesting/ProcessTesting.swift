/// ProcessTesting: the child processes of the tests and the benchmarks, never linked into an app.
///
/// Every child has a deadline after which it is killed with SIGKILL, and its standard output and
/// error are read to their end. Children are started with swift-subprocess (``runProcess(_:_:stdin:environment:currentDirectory:deadline:)``,
/// ``BackgroundProcess``), which waits for them on a process descriptor and reads their pipes
/// without a run loop or `select`; ``SpawnedProcess`` is the one `posix_spawn` of ours, for a
/// child that must be handed a descriptor beyond stderr (socket activation passes the listening
/// socket as descriptor 3, and swift-subprocess closes every descriptor from 3 up in the child).
/// Foundation's `Process` is not used: on Linux it runs a run-loop thread and a socket manager
/// that waits in `select`, which cannot watch a descriptor above 1024.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Subprocess

/// A child process could not be started, or did not do what a test waited for.
public struct ChildProcessError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension TerminationStatus {
    /// The status as a shell reports it: the exit code, or 128 + the signal that ended the process.
    var shellStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }
}

/// The environment of a child: this process's, with `overrides` on top.
/// - Throws: when a name cannot be a variable's (empty, or with `=` or a NUL in it).
func inheritedEnvironment(_ overrides: [String: String]) throws -> Environment {
    var updates: [Environment.Key: String?] = [:]
    for (name, value) in overrides {
        guard !name.isEmpty, !name.contains("="), !name.contains("\0") else {
            throw ChildProcessError("\(name.debugDescription) cannot name an environment variable: give a name without = or NUL")
        }
        updates[Environment.Key(stringLiteral: name)] = value
    }
    return .inherit.updating(updates)
}

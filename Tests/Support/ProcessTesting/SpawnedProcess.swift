#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#endif
import Foundation
import Synchronization

/// A child process started with `posix_spawn`, for what swift-subprocess cannot do: hand
/// it a descriptor beyond stderr (socket activation passes the listening socket as descriptor 3).
/// Its stderr goes to a file; it is killed with SIGKILL when its deadline passes or `stop` finds
/// it still running after the grace period.
public final class SpawnedProcess: Sendable {
    public let pid: pid_t
    /// The file its stderr goes to.
    public let errorLog: String
    private let exitStatus = Mutex<Int32?>(nil)
    private let watchdog: Task<Void, Never>

    /// Starts `executable` with `arguments` and exactly `environment`; `descriptor` becomes the
    /// child's descriptor `target` (without close-on-exec); stdin and stdout are /dev/null.
    public init(_ executable: String, _ arguments: [String], environment: [String: String], passing descriptor: Int32, as target: Int32 = 3, errorLog: String, deadline: Duration = .seconds(120)) throws {
        self.errorLog = errorLog
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorLog, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if descriptor == target {
            // dup2 onto itself keeps close-on-exec: clear it instead.
            _ = fcntl(descriptor, F_SETFD, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, descriptor, target)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else {
            throw ChildProcessError("posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        watchdog = Task {
            try? await Task.sleep(for: deadline)
            if !Task.isCancelled { kill(pid, SIGKILL) }
        }
    }

    deinit {
        watchdog.cancel()
        if status() == nil {
            kill(pid, SIGKILL)
            // SIGKILL ends it; reaped within 10 s at most (a process stuck in the kernel is left
            // to the test watchdog, which names it).
            for _ in 0..<1000 where status() == nil { usleep(10_000) }
        }
    }

    /// What it wrote to stderr so far.
    public var errorOutput: String { (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "" }

    /// The exit status once it has exited (128 + the signal when a signal ended it), else nil.
    public func status() -> Int32? {
        exitStatus.withLock { exitStatus in
            if let exitStatus { return exitStatus }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
            let signal = raw & 0x7f
            exitStatus = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
            return exitStatus
        }
    }

    /// Waits until a line of its stderr contains `text`; returns that line.
    public func waitForLine(containing text: String, timeout: Duration = .seconds(30)) async throws -> String {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        while clock.now < end {
            if let line = errorOutput.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if let status = status() {
                throw ChildProcessError("the process exited (status \(status)) before printing \"\(text)\"; stderr: \(errorOutput)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ChildProcessError("the process did not print \"\(text)\" within \(timeout); stderr: \(errorOutput)")
    }

    /// Sends `signal` and waits for the exit; SIGKILL after `grace`. Returns the exit status (-1
    /// when even SIGKILL did not end it within 30 s).
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, grace: Duration = .seconds(15)) async -> Int32 {
        if status() == nil { kill(pid, signal) }
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: grace)
        // SIGKILL after `grace`; its status follows at once, waited for 30 s at most.
        let last = end.advanced(by: .seconds(30))
        while status() == nil && clock.now < last {
            if clock.now >= end { kill(pid, SIGKILL) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        watchdog.cancel()
        return status() ?? -1
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// The built surveyd under systemd's protocols, with the test in systemd's place: the notify
/// socket, a passed listening socket, the journal's stream, SIGHUP; and `--check-config`.
@Suite(.serialized, .timeLimit(.minutes(10))) struct SystemdEndToEndTests {
    /// READY=1 once the socket listens, STATUS= lines that follow the sessions, WATCHDOG=1 while
    /// healthy, STOPPING=1 at the end.
    @Test func notifiesReadinessStatusWatchdogAndStopping() async throws {
        let stack = try Stack()
        try await stack.startMock()
        let listener = try DatagramListener(path: stack.dir.path + "/notify")
        defer { listener.stop() }
        // A JOURNAL_STREAM that is not stderr: no priority prefixes.
        try await stack.startDaemon(environment: ["NOTIFY_SOCKET": listener.name, "WATCHDOG_USEC": "2000000", "JOURNAL_STREAM": "1:1"])
        let daemon = try #require(stack.daemon)
        #expect(await eventually { !listener.messages.isEmpty })
        let first = try #require(listener.messages.first)
        #expect(first.hasPrefix("READY=1\nSTATUS="), "\(first)")
        #expect(first.hasSuffix(", 0 pending, 0 dead, 0 sessions"), "\(first)")
        #expect(try await stack.ctl(["status"]).status == 0)
        #expect(await eventually { listener.messages.contains("WATCHDOG=1") }, "\(listener.messages)")

        let started = try await stack.ctl(["start", "--lang", "en"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(await eventually { listener.messages.contains { $0.hasPrefix("STATUS=") && $0.hasSuffix(", 0 pending, 0 dead, 1 session") } }, "\(listener.messages)")
        // Status lines are sent when the line changes, not on every tick.
        let statusLines = listener.messages.filter { $0.hasPrefix("STATUS=") }
        #expect(Set(statusLines).count == statusLines.count, "\(statusLines)")

        #expect(await daemon.stop() == 0, "\(daemon.errorOutput)")
        #expect(listener.messages.last == "STOPPING=1\nSTATUS=stopping", "\(listener.messages)")
        #expect(!daemon.errorOutput.contains("<6>"), "a stderr that is not the journal gets no priority prefix")
        #expect(daemon.errorOutput.contains("surveyd ready"))
        stack.daemon = nil
        await stack.finish()
    }

    /// With a socket "systemd" bound and passed as descriptor 3 (LISTEN_FDS=1, LISTEN_PID of the
    /// daemon), surveyd serves it instead of binding, leaves no lock file, and does not remove it
    /// when it stops: a second daemon handed the same socket serves it again.
    @Test func servesTheSocketSystemdPasses() async throws {
        let stack = try Stack()
        defer { stack.dir.remove() }
        try await stack.startMock()
        let fd = try Self.listeningSocket(at: stack.socket)
        defer { close(fd) }
        for round in 1...2 {
            let daemon = try SpawnedProcess(
                "/bin/sh",
                ["-c", "export LISTEN_PID=$$; exec \"$0\" \"$@\"", stack.daemonBinary.path,
                 "--server-url", stack.serverURL, "--state-dir", stack.state, "--socket", stack.socket],
                environment: ["HOME": stack.dir.path, "PATH": "/usr/bin:/bin", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "control"],
                passing: fd, errorLog: stack.dir.path + "/daemon\(round).log", deadline: .seconds(60))
            let ready = try await daemon.waitForLine(containing: "surveyd ready")
            #expect(ready.contains("socketActivation=true"), "\(ready)")
            let status = try await stack.ctl(["status"])
            #expect(status.status == 0, "round \(round): \(status.stdout) \(status.stderr)")
            #expect(!FileManager.default.fileExists(atPath: stack.socket + ".lock"))
            #expect(await daemon.stop() == 0, "\(daemon.errorOutput)")
            #expect(FileManager.default.fileExists(atPath: stack.socket), "round \(round): the passed socket was removed")
        }
        await stack.stopMock()
    }

    /// Variables that name a socket that is not a listening Unix stream socket stop the start
    /// with a message saying so (exit 1).
    @Test func aPassedDescriptorThatDoesNotListenIsRefused() async throws {
        let dir = try TemporaryDirectory(prefix: "sa")
        defer { dir.remove() }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        let daemon = try SpawnedProcess(
            "/bin/sh",
            ["-c", "export LISTEN_PID=$$; exec \"$0\" \"$@\"", PackagePaths.executable("surveyd").path,
             "--server-url", "http://127.0.0.1:9", "--state-dir", dir.appending("state").path, "--socket", dir.appending("d.sock").path],
            environment: ["HOME": dir.path, "PATH": "/usr/bin:/bin", "LISTEN_FDS": "1"],
            passing: fd, errorLog: dir.appending("err.log").path, deadline: .seconds(60))
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: .seconds(30))
        while daemon.status() == nil && clock.now < end { try await Task.sleep(for: .milliseconds(20)) }
        #expect(daemon.status() == 1)
        #expect(daemon.errorOutput.contains("surveyd: socket activation: descriptor 3 is a Unix socket that does not listen"), "\(daemon.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: dir.appending("state").path))
    }

    /// Under the journal (JOURNAL_STREAM names stderr) every line starts with its priority;
    /// SIGHUP applies a new log level from the file, names a change that needs a restart, and
    /// keeps the settings when the file has become wrong.
    @Test func sighupReloadsAndJournalLinesCarryPriorities() async throws {
        let stack = try Stack()
        try await stack.startMock()
        let file = stack.dir.path + "/surveyd.json"
        try Data(#"{"logLevel": "info"}"#.utf8).write(to: URL(fileURLWithPath: file))
        let daemon = try await BackgroundProcess.start(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2); export JOURNAL_STREAM; exec \"$0\" \"$@\"", stack.daemonBinary.path,
             "--server-url", stack.serverURL, "--socket", stack.socket, "--state-dir", stack.state, "--config", file],
            deadline: .seconds(120))
        stack.daemon = daemon
        let ready = try await daemon.waitForLine(containing: "surveyd ready", onStandardError: true)
        #expect(ready.hasPrefix("<6>"), "\(ready)")
        #expect(try await stack.ctl(["start", "--lang", "en"]).status == 0)
        #expect(!daemon.errorOutput.contains("sending a request to the survey server"), "debug lines before the reload")

        try Data(#"{"logLevel": "debug", "maxInFlight": 2}"#.utf8).write(to: URL(fileURLWithPath: file))
        kill(daemon.pid, SIGHUP)
        let reloaded = try await daemon.waitForLine(containing: "configuration reloaded", onStandardError: true)
        #expect(reloaded.hasPrefix("<5>"), "\(reloaded)")
        #expect(reloaded.contains("applied=logLevel"), "\(reloaded)")
        let restart = try await daemon.waitForLine(containing: "take effect only after a restart", onStandardError: true)
        #expect(restart.hasPrefix("<4>"), "\(restart)")
        #expect(restart.hasSuffix(": maxInFlight"), "\(restart)")
        // The new level applies at once: the next questionnaire fetch is logged at debug level.
        #expect(try await stack.ctl(["start", "--lang", "en"]).status == 0)
        let request = try await daemon.waitForLine(containing: "sending a request to the survey server", onStandardError: true)
        #expect(request.hasPrefix("<7>"), "\(request)")

        // A file that became wrong: logged as an error, nothing changes, the daemon goes on.
        try Data(#"{"logLevel": "loud"}"#.utf8).write(to: URL(fileURLWithPath: file))
        kill(daemon.pid, SIGHUP)
        let refused = try await daemon.waitForLine(containing: "configuration not reloaded", onStandardError: true)
        #expect(refused.hasPrefix("<3>"), "\(refused)")
        #expect(refused.contains("key logLevel"), "\(refused)")
        #expect(try await stack.ctl(["status"]).status == 0)
        #expect(daemon.isRunning)
        let lines = daemon.errorOutput.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("<") }, "\(lines.filter { !$0.hasPrefix("<") })")
        #expect(await daemon.stop() == 0)
        stack.daemon = nil
        await stack.finish()
    }

    /// `--check-config` resolves and checks like a start, with a start's messages, and exits 0
    /// or 78 without creating, binding or locking anything.
    @Test func checkConfigValidatesWithoutStartingAnything() async throws {
        let surveyd = PackagePaths.executable("surveyd")
        let dir = try TemporaryDirectory(prefix: "cc")
        defer { dir.remove() }
        let paths = ["--state-dir", dir.appending("state").path, "--socket", dir.appending("run/d.sock").path]
        let base = paths + ["--server-url", "http://127.0.0.1:9"]
        let environment = ["HOME": dir.path, "PATH": "/usr/bin:/bin"]

        let valid = try await runProcess(surveyd, base + ["--check-config", "--max-in-flight", "8"], environment: environment, deadline: .seconds(30))
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout.contains("surveyd: the configuration is valid"))
        #expect(valid.stdout.contains("\nmaxInFlight: 8\n"), "\(valid.stdout)")
        #expect(valid.stdout.contains("\nserverURL: http://127.0.0.1:9\n"), "\(valid.stdout)")

        let wrong = try await runProcess(surveyd, base + ["--check-config", "--max-in-flight", "0"], environment: environment, deadline: .seconds(30))
        #expect(wrong.status == 78)
        #expect(wrong.stderr.contains("surveyd: surveyd configuration: flag --max-in-flight: must be from 1 to 64, got 0"), "\(wrong.stderr)")
        let start = try await runProcess(surveyd, base + ["--max-in-flight", "0"], environment: environment, deadline: .seconds(30))
        #expect(start.status == 78)
        #expect(start.stderr == wrong.stderr, "a start and a check give the same message")

        let fromFile = dir.appending("surveyd.json")
        try Data(#"{"durability": "sometimes"}"#.utf8).write(to: fromFile)
        let file = try await runProcess(surveyd, base + ["--check-config", "--config", fromFile.path], environment: environment, deadline: .seconds(30))
        #expect(file.status == 78)
        #expect(file.stderr.contains("configuration file \(fromFile.path), key durability"), "\(file.stderr)")

        let noServer = try await runProcess(surveyd, paths + ["--check-config"], environment: environment, deadline: .seconds(30))
        #expect(noServer.status == 78)
        #expect(noServer.stderr.contains("surveyd: no survey server URL is configured"), "\(noServer.stderr)")

        let noGroup = try await runProcess(surveyd, base + ["--check-config", "--socket-group", "no-such-group-surveyd"], environment: environment, deadline: .seconds(30))
        #expect(noGroup.status == 78)
        #expect(noGroup.stderr.contains("the socket group no-such-group-surveyd does not exist"), "\(noGroup.stderr)")

        for path in ["state", "run", "run/d.sock", "run/d.sock.lock"] {
            #expect(!FileManager.default.fileExists(atPath: dir.appending(path).path), "--check-config created \(path)")
        }
    }

    /// A Unix stream socket bound at `path` and listening, as a .socket unit makes it.
    static func listeningSocket(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8) + [0]
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard bound == 0, listen(fd, 16) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL)
        }
        return fd
    }
}

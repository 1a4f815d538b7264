#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Networking
import Synchronization
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// Log lines for the journal, the configuration reload's plan, and the socket systemd passes.
@Suite(.timeLimit(.minutes(5))) struct DaemonLogHandlerTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }

    func logger(journal: Bool, level: DaemonLogLevel, into lines: Lines) -> Logger {
        Logger(label: "surveyd") { label in
            DaemonLogHandler(label: label, journal: journal, level: level, metadataProvider: nil) { line in lines.lines.withLock { $0.append(line) } }
        }
    }

    @Test func journalLinesStartWithTheirSyslogPriority() {
        let lines = Lines()
        let level = DaemonLogLevel(.debug)
        let log = logger(journal: true, level: level, into: lines)
        log.error("broken", metadata: ["k": "v"])
        log.warning("careful")
        log.notice("note")
        log.info("hello")
        log.debug("detail")
        let prefixes = lines.all.map { String($0.prefix(3)) }
        #expect(prefixes == ["<3>", "<4>", "<5>", "<6>", "<7>"])
        #expect(lines.all[0].contains("error surveyd: k=v [SurveyDaemonTests] broken"), "\(lines.all[0])")
        #expect(lines.all.allSatisfy { $0.hasSuffix("\n") })
        #expect(DaemonLogHandler.priority(of: .critical) == "<2>")
        #expect(DaemonLogHandler.priority(of: .trace) == "<7>")
    }

    @Test func otherLinesCarryNoPrefix() {
        let lines = Lines()
        let log = logger(journal: false, level: DaemonLogLevel(.info), into: lines)
        log.warning("careful")
        #expect(lines.all.count == 1)
        #expect(!lines.all[0].hasPrefix("<"))
        #expect(lines.all[0].contains("warning surveyd: [SurveyDaemonTests] careful"))
    }

    @Test func theSharedLevelChangesEveryLoggerAtOnce() {
        let lines = Lines()
        let level = DaemonLogLevel(.info)
        let log = logger(journal: false, level: level, into: lines)
        log.debug("hidden")
        #expect(lines.all.isEmpty)
        level.level = .debug
        log.debug("shown")
        #expect(lines.all.count == 1)
        level.level = .error
        log.warning("hidden again")
        #expect(lines.all.count == 1)
    }

    /// `$JOURNAL_STREAM` names the device and inode of stderr under systemd; only a descriptor
    /// that is that very stream counts.
    @Test func theJournalIsRecognisedByDeviceAndInode() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let info = try #require(fileIdentity(of: fds[1]))
        let value = "\(info.device):\(info.inode)"
        #expect(DaemonLogHandler.standardErrorIsJournal(environment: ["JOURNAL_STREAM": value], descriptor: fds[1]))
        #expect(!DaemonLogHandler.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "\(info.device):\(info.inode + 1)"], descriptor: fds[1]))
        #expect(!DaemonLogHandler.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "garbage"], descriptor: fds[1]))
        #expect(!DaemonLogHandler.standardErrorIsJournal(environment: [:], descriptor: fds[1]))
    }
}

@Suite(.timeLimit(.minutes(5))) struct ConfigurationReloadTests {
    func configuration(_ adjust: (inout DaemonConfiguration.Overrides) -> Void) async throws -> DaemonConfiguration {
        var flags = DaemonConfiguration.Overrides()
        flags[\.serverURL] = "http://127.0.0.1:9"
        adjust(&flags)
        return try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/nonexistent"], flags: flags, userID: 1000)
    }

    @Test func changesAreSortedIntoAppliedAndNeedingARestart() async throws {
        let old = try await configuration { _ in }
        let new = try await configuration {
            $0[\.logLevel] = .debug
            $0[\.idleSessionTimeoutSeconds] = 60
            $0[\.backoffCapSeconds] = 10
            $0[\.maxInFlight] = 8
            $0[\.serverURL] = "http://127.0.0.1:10"
        }
        let changes = ConfigurationChanges.between(old, new)
        #expect(changes.applied == ["backoffCapSeconds", "idleSessionTimeoutSeconds", "logLevel"])
        #expect(changes.needRestart == ["serverURL", "maxInFlight"])
        #expect(ConfigurationChanges.between(old, old) == ConfigurationChanges())
    }

    /// Every setting a reload applies is declared (a renamed key would silently need a restart).
    @Test func everyReloadableSettingIsDeclared() {
        for key in ConfigurationChanges.reloadable {
            #expect(DaemonSetting.named(key) != nil, "\(key)")
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct SocketActivationTests {
    func unixSocket(type: Int32 = Int32(SOCK_STREAM.rawValue), at path: String, listening: Bool) throws -> Int32 {
        let fd = socket(AF_UNIX, type, 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8) + [0]
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        if listening { #expect(listen(fd, 8) == 0) }
        return fd
    }

    @Test func onlySocketsPassedToThisProcessCount() throws {
        #expect(try SocketActivation.controlSocket(environment: [:], pid: 42) == nil)
        #expect(try SocketActivation.controlSocket(environment: ["LISTEN_PID": "43", "LISTEN_FDS": "1"], pid: 42) == nil)
        #expect(try SocketActivation.controlSocket(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "0"], pid: 42) == nil)
        #expect(throws: ControlError.self) { try SocketActivation.controlSocket(environment: ["LISTEN_PID": "x", "LISTEN_FDS": "1"], pid: 42) }
        #expect(throws: ControlError.self) { try SocketActivation.controlSocket(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "many"], pid: 42) }
    }

    @Test func aListeningUnixStreamSocketIsAccepted() throws {
        let dir = try TemporaryDirectory(prefix: "sa")
        defer { dir.remove() }
        let path = dir.appending("c.sock").path
        let fd = try unixSocket(at: path, listening: true)
        defer { close(fd) }
        #expect(try SocketActivation.check(fd) == path)
    }

    @Test func aSocketThatDoesNotListenOrIsNotAStreamIsRefused() throws {
        let dir = try TemporaryDirectory(prefix: "sa")
        defer { dir.remove() }
        let idle = try unixSocket(at: dir.appending("idle.sock").path, listening: false)
        defer { close(idle) }
        let datagram = try unixSocket(type: Int32(SOCK_DGRAM.rawValue), at: dir.appending("dgram.sock").path, listening: false)
        defer { close(datagram) }
        for (fd, words) in [(idle, "does not listen"), (datagram, "is not a Unix stream socket")] {
            do {
                _ = try SocketActivation.check(fd)
                Issue.record("descriptor \(fd) was accepted")
            } catch {
                #expect(error.code == "socket_activation")
                #expect(error.message.contains(words), "\(error.message)")
            }
        }
    }

    /// A passed socket belongs to its .socket unit: served as is, never removed.
    @Test func anInheritedSocketIsServedAndNeverRemoved() throws {
        let dir = try TemporaryDirectory(prefix: "sa")
        defer { dir.remove() }
        let path = dir.appending("c.sock").path
        let fd = try unixSocket(at: path, listening: true)
        defer { close(fd) }
        let claim = ControlSocketClaim.inherited(InheritedControlSocket(descriptor: fd, path: path))
        #expect(claim.isInherited)
        #expect(try claim.listeningSocket() == fd)
        #expect(throws: ControlError.self) { try claim.listeningSocket() }
        #expect(!claim.removeSocketFile())
        claim.release()
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"), "no lock file is made for a passed socket")
    }
}

/// A reload on a whole daemon in process: what it applies reaches the worker, the sessions and
/// the log level; what needs a restart keeps its value; a configuration that fails changes nothing.
@Suite(.timeLimit(.minutes(5))) struct DaemonReloadTests {
    @Test func aReloadAppliesLevelBackoffAndIdleTimeoutOnly() async throws {
        let dir = try TemporaryDirectory(prefix: "rl")
        defer { dir.remove() }
        let configuration = try await InProcessDaemon.configuration(in: dir)
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
        var next = configuration
        next.logLevel = .debug
        next.idleSessionTimeoutSeconds = 60
        next.backoffBaseSeconds = 0.5
        next.backoffCapSeconds = 2
        next.maxInFlight = 9
        let resolved = Mutex<Result<DaemonConfiguration, ConfigurationError>>(.success(next))
        let level = DaemonLogLevel(.info)
        let reloader = ConfigurationReloader(current: configuration, daemon: daemon, logLevel: level, logger: Logger(label: "t")) { () async throws(ConfigurationError) in
            try resolved.withLock { $0 }.get()
        }
        let changes = await reloader.reload()
        #expect(changes?.applied == ["backoffBaseSeconds", "backoffCapSeconds", "idleSessionTimeoutSeconds", "logLevel"])
        #expect(changes?.needRestart == ["maxInFlight"])
        #expect(level.level == .debug)
        #expect(await daemon.sessions.settings.idleTimeout == .seconds(60))
        let delays = await (0..<20).asyncMap { attempt in await daemon.worker.settings.backoff(attempt + 10, nil) }
        #expect(delays.allSatisfy { $0 <= .seconds(2) }, "\(delays)")
        #expect(await daemon.worker.ramp.maxRetryAfter == .seconds(2), "the ramp honours Retry-After up to the reloaded backoff cap")
        #expect(await reloader.current.maxInFlight == configuration.maxInFlight)
        #expect(await reloader.current.logLevel == .debug)

        resolved.withLock { $0 = .failure(ConfigurationError(source: "flag --x", "wrong")) }
        #expect(await reloader.reload() == nil)
        #expect(level.level == .debug)
        #expect(await daemon.sessions.settings.idleTimeout == .seconds(60))
        await daemon.close()
    }
}

extension Sequence where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var results: [T] = []
        for element in self { results.append(await transform(element)) }
        return results
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Logging
import MockServer
import Synchronization

/// The daemon's version, shown by `surveyd --version` and `surveyctl status`.
public enum SurveyDaemonVersion {
    public static let current = "0.2.0"
}

/// What `surveyd` runs: the daemon until SIGTERM or SIGINT; a second signal forces the exit.
public enum DaemonMain {
    public static func run(configuration: DaemonConfiguration, logger: Logger, onReady: @escaping @Sendable () async -> Void = {}) async throws {
        if let files = OpenFileLimit.raiseToHardLimit(), files < UInt64(configuration.maxControlConnections) + 64 {
            logger.warning("the open file limit is low for maxControlConnections: connections beyond it are refused", metadata: ["limit": "\(files)", "maxControlConnections": "\(configuration.maxControlConnections)"])
        }
        let daemon = try await Daemon(configuration: configuration, version: SurveyDaemonVersion.current, logger: logger)
        let escalation = SecondSignal(logger: logger)
        defer { escalation.cancel() }
        try await daemon.run {
            logger.info("surveyd ready", metadata: ["socket": "\(configuration.socketPath)", "state": "\(configuration.stateDirectory)", "server": "\(configuration.serverURL ?? "")"])
            await onReady()
        }
    }
}

/// Counts SIGTERM and SIGINT beside the service group's own handling: the first starts the
/// graceful shutdown (the group does that), the second exits at once. Nothing acknowledged is
/// lost by that: every acknowledged answer is already durable.
final class SecondSignal: @unchecked Sendable {
    // Set once in init; DispatchSource's cancel is thread-safe.
    private let sources: [any DispatchSourceSignal]

    init(logger: Logger) {
        let count = Atomic<Int>(0)
        sources = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if count.add(1, ordering: .relaxed).newValue >= 2 {
                    FileHandle.standardError.write(Data("surveyd: second signal, exiting now\n".utf8))
                    _exit(EXIT_FAILURE)
                }
            }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}

/// `surveyd --demo`: the mock survey server on a loopback port and a daemon against it.
public enum DemoMode {
    public static func run(fixtures: String, configurationFile: String?, environment: [String: String], flags: DaemonConfiguration.Overrides, logger: Logger) async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: fixtures + "/questions", isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DaemonStartError("the mock fixtures \(fixtures)/questions are not there; run surveyd --demo from the repository root or give --fixtures PATH")
        }
        let demoDirectory = flags.stateDirectory ?? (NSTemporaryDirectory().trimmingSuffix("/") + "/surveyd-demo-\(getuid())")
        try Daemon.makeDirectory(demoDirectory)
        var mockLogger = logger
        mockLogger.logLevel = .warning
        let record = demoDirectory + "/mock-record.jsonl"
        let mock = try await InProcessMockServer.start(
            configuration: MockServerConfiguration(fixtures: URL(fileURLWithPath: fixtures), recordFile: URL(fileURLWithPath: record)),
            logger: mockLogger)
        var overrides = flags
        overrides.serverURL = "http://127.0.0.1:\(mock.port)"
        overrides.stateDirectory = demoDirectory + "/state"
        overrides.socketPath = flags.socketPath ?? demoDirectory + "/surveyd.sock"
        let configuration: DaemonConfiguration
        do {
            configuration = try DaemonConfiguration.resolve(file: configurationFile, environment: environment, flags: overrides, userID: getuid())
        } catch {
            try await mock.stop()
            throw error
        }
        do {
            try await DaemonMain.run(configuration: configuration, logger: logger) {
                let text = """
                    surveyd demo is running.
                      mock survey server: http://127.0.0.1:\(mock.port) (every accepted submission is appended to \(record))
                      state directory:    \(configuration.stateDirectory)
                      control socket:     \(configuration.socketPath)

                    In another terminal:
                      export SURVEYD_SOCKET=\(configuration.socketPath)
                      swift run surveyctl start --lang en
                      swift run surveyctl answer 5
                      swift run surveyctl status

                    Press Ctrl-C to stop.

                    """
                FileHandle.standardOutput.write(Data(text.utf8))
            }
        } catch {
            try? await mock.stop()
            throw error
        }
        try await mock.stop()
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import Logging
import SurveyDaemon

/// `surveyd`: the survey agent daemon. The logic lives in the SurveyDaemon module.
@main
struct SurveydCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "surveyd",
        abstract: "The offline-first survey agent: runs survey sessions, journals every answer, delivers submissions.",
        discussion: """
            Settings come from built-in defaults, then --config FILE (JSON), then SURVEYD_* environment \
            variables, then these flags; doc/configuration.md lists them all. SIGTERM or SIGINT stops it \
            gracefully; a second signal forces the exit.

            Try it with no survey server: surveyd --demo
            """,
        version: SurveyDaemonVersion.current
    )

    @Option(help: "A JSON configuration file.") var config: String?
    @Option(help: "Base URL of the survey server.") var serverURL: String?
    @Option(help: "Default language of sessions: ko or en.") var lang: String?
    @Option(help: "State directory (journal, queue, definition cache).") var stateDir: String?
    @Option(help: "Control socket path.") var socket: String?
    @Option(help: "Group allowed to use the control socket (mode 0660).") var socketGroup: String?
    @Option(help: "strict (default) or relaxed.") var durability: DaemonConfiguration.Durability?
    @Option(help: "Seconds before an idle session is closed as abandoned.") var idleTimeout: Double?
    @Option(help: "Seconds a finished stage waits for its delivery before the outcome is queued.") var deliveryWait: Double?
    @Option(help: "Uploads in flight at once (1-64).") var maxInFlight: Int?
    @Option(help: "A file holding the survey server's bearer token.") var tokenFile: String?
    @Option(help: "Seconds a control request's head may take from its first byte, and its body from its head.") var controlReadTimeout: Double?
    @Option(help: "Seconds a control connection may stay open with no request after its last response.") var controlIdleTimeout: Double?
    @Option(help: "The most control connections open at once (1-65536).") var maxControlConnections: Int?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel: Logger.Level = .info
    @Flag(help: "Start the mock survey server on a loopback port and a daemon against it, with its state in a demo directory.") var demo = false
    @Option(help: "The mock fixtures folder used by --demo.") var fixtures = "mock"

    func run() async throws {
        umask(0o077)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let logger = Logger(label: "surveyd")
        var flags = DaemonConfiguration.Overrides()
        flags.serverURL = serverURL
        flags.defaultLanguage = lang
        flags.stateDirectory = stateDir
        flags.socketPath = socket
        flags.socketGroup = socketGroup
        flags.durability = durability
        flags.idleSessionTimeoutSeconds = idleTimeout
        flags.deliveryWaitSeconds = deliveryWait
        flags.maxInFlight = maxInFlight
        flags.tokenFile = tokenFile
        flags.controlReadTimeoutSeconds = controlReadTimeout
        flags.controlIdleTimeoutSeconds = controlIdleTimeout
        flags.maxControlConnections = maxControlConnections
        let environment = ProcessInfo.processInfo.environment
        do {
            if demo {
                try await DemoMode.run(fixtures: fixtures, configurationFile: config, environment: environment, flags: flags, logger: logger)
                return
            }
            let resolved = try DaemonConfiguration.resolve(file: config, environment: environment, flags: flags, userID: getuid())
            try await DaemonMain.run(configuration: resolved, logger: logger)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("surveyd: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        } catch let error as DaemonStartError {
            FileHandle.standardError.write(Data("surveyd: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
    }
}

extension DaemonConfiguration.Durability: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}

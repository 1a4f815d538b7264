#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Entities
import Foundation
import Logging
import SurveyDaemon
import SurveyDemo

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
    // The settings' flags: names and help come from their declarations (DaemonSetting.all).
    @Option(name: .setting(\.serverURL), help: .setting(\.serverURL)) var serverURL: String?
    @Option(name: .setting(\.defaultLanguage), help: .setting(\.defaultLanguage)) var lang: Language?
    @Option(name: .setting(\.stateDirectory), help: .setting(\.stateDirectory)) var stateDir: String?
    @Option(name: .setting(\.socketPath), help: .setting(\.socketPath)) var socket: String?
    @Option(name: .setting(\.socketGroup), help: .setting(\.socketGroup)) var socketGroup: String?
    @Option(name: .setting(\.durability), help: .setting(\.durability)) var durability: DaemonConfiguration.Durability?
    @Option(name: .setting(\.idleSessionTimeoutSeconds), help: .setting(\.idleSessionTimeoutSeconds)) var idleTimeout: Double?
    @Option(name: .setting(\.deliveryWaitSeconds), help: .setting(\.deliveryWaitSeconds)) var deliveryWait: Double?
    @Option(name: .setting(\.maxInFlight), help: .setting(\.maxInFlight)) var maxInFlight: Int?
    @Option(name: .setting(\.definitionFetchDeadlineSeconds), help: .setting(\.definitionFetchDeadlineSeconds)) var definitionFetchDeadline: Double?
    @Option(name: .setting(\.tokenFile), help: .setting(\.tokenFile)) var tokenFile: String?
    @Option(name: .setting(\.deviceID), help: .setting(\.deviceID)) var deviceID: String?
    @Option(name: .setting(\.controlReadTimeoutSeconds), help: .setting(\.controlReadTimeoutSeconds)) var controlReadTimeout: Double?
    @Option(name: .setting(\.controlIdleTimeoutSeconds), help: .setting(\.controlIdleTimeoutSeconds)) var controlIdleTimeout: Double?
    @Option(name: .setting(\.maxControlConnections), help: .setting(\.maxControlConnections)) var maxControlConnections: Int?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel: Logger.Level = .info
    @Flag(help: "Start the mock survey server on a loopback port and a daemon against it, with its state in a demo directory.") var demo = false
    @Option(help: "The mock fixtures folder used by --demo.") var fixtures = "mock"

    /// The settings given as flags: the highest-priority source.
    var flags: DaemonConfiguration.Overrides {
        var flags = DaemonConfiguration.Overrides()
        flags[\.serverURL] = serverURL
        flags[\.defaultLanguage] = lang
        flags[\.stateDirectory] = stateDir
        flags[\.socketPath] = socket
        flags[\.socketGroup] = socketGroup
        flags[\.durability] = durability
        flags[\.idleSessionTimeoutSeconds] = idleTimeout
        flags[\.deliveryWaitSeconds] = deliveryWait
        flags[\.maxInFlight] = maxInFlight
        flags[\.definitionFetchDeadlineSeconds] = definitionFetchDeadline
        flags[\.controlReadTimeoutSeconds] = controlReadTimeout
        flags[\.controlIdleTimeoutSeconds] = controlIdleTimeout
        flags[\.maxControlConnections] = maxControlConnections
        flags[\.tokenFile] = tokenFile
        flags[\.deviceID] = deviceID
        return flags
    }

    func run() async throws {
        umask(0o077)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let logger = Logger(label: "surveyd")
        let environment = ProcessInfo.processInfo.environment
        do {
            if demo {
                try await DemoMode.run(fixtures: fixtures, configurationFile: config, environment: environment, flags: flags, logger: logger)
                return
            }
            let resolved = try await DaemonConfiguration.resolve(file: config, environment: environment, flags: flags, userID: getuid())
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
extension Language: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}

extension NameSpecification {
    /// The flag a setting declares.
    static func setting(_ path: PartialKeyPath<DaemonConfiguration>) -> NameSpecification {
        guard let flag = DaemonSetting.of(path).flag else { preconditionFailure("\(path) declares no flag") }
        return .customLong(flag)
    }
}

extension ArgumentHelp {
    /// A setting's help, from its declaration.
    static func setting(_ path: PartialKeyPath<DaemonConfiguration>) -> ArgumentHelp {
        let setting = DaemonSetting.of(path)
        return ArgumentHelp(setting.help, valueName: setting.valueName)
    }
}

#if canImport(Glibc)
import Glibc
#endif
public import ArgumentParser
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
    @Option(name: .setting(\.firstStage), help: .setting(\.firstStage)) var firstStage: String?
    @Option(name: .setting(\.stateDirectory), help: .setting(\.stateDirectory)) var stateDir: String?
    @Option(name: .setting(\.socketPath), help: .setting(\.socketPath)) var socket: String?
    @Option(name: .setting(\.socketGroup), help: .setting(\.socketGroup)) var socketGroup: String?
    @Option(name: .setting(\.durability), help: .setting(\.durability)) var durability: DaemonConfiguration.Durability?
    @Option(name: .setting(\.idleSessionTimeoutSeconds), help: .setting(\.idleSessionTimeoutSeconds)) var idleTimeout: Double?
    @Option(name: .setting(\.deliveryWaitSeconds), help: .setting(\.deliveryWaitSeconds)) var deliveryWait: Double?
    @Option(name: .setting(\.maxInFlight), help: .setting(\.maxInFlight)) var maxInFlight: Int?
    @Option(name: .setting(\.definitionFetchDeadlineSeconds), help: .setting(\.definitionFetchDeadlineSeconds)) var definitionFetchDeadline: Double?
    @Option(name: .setting(\.tokenFile), help: .setting(\.tokenFile)) var tokenFile: String?
    @Option(name: .setting(\.encryptionKeyFile), help: .setting(\.encryptionKeyFile)) var encryptionKeyFile: String?
    @Option(name: .setting(\.encryptionOldKeyFiles), help: .setting(\.encryptionOldKeyFiles)) var encryptionOldKeyFiles: String?
    @Option(name: .setting(\.deviceID), help: .setting(\.deviceID)) var deviceID: String?
    @Option(name: .setting(\.controlReadTimeoutSeconds), help: .setting(\.controlReadTimeoutSeconds)) var controlReadTimeout: Double?
    @Option(name: .setting(\.controlIdleTimeoutSeconds), help: .setting(\.controlIdleTimeoutSeconds)) var controlIdleTimeout: Double?
    @Option(name: .setting(\.maxControlConnections), help: .setting(\.maxControlConnections)) var maxControlConnections: Int?
    @Option(name: .setting(\.kioskListen), help: .setting(\.kioskListen)) var kioskListen: String?
    @Option(name: .setting(\.kioskAccess), help: .setting(\.kioskAccess)) var kioskAccess: DaemonConfiguration.KioskAccess?
    @Option(name: .setting(\.kioskTitleEnglish), help: .setting(\.kioskTitleEnglish)) var kioskTitleEn: String?
    @Option(name: .setting(\.kioskTitleKorean), help: .setting(\.kioskTitleKorean)) var kioskTitleKo: String?
    @Option(name: .setting(\.kioskEndScreenSeconds), help: .setting(\.kioskEndScreenSeconds)) var kioskEndScreen: Int?
    @Option(name: .setting(\.kioskIdleSeconds), help: .setting(\.kioskIdleSeconds)) var kioskIdle: Int?
    @Option(name: .setting(\.kioskIdleCountdownSeconds), help: .setting(\.kioskIdleCountdownSeconds)) var kioskIdleCountdown: Int?
    @Option(name: .setting(\.kioskKeyboard), help: .setting(\.kioskKeyboard)) var kioskKeyboard: DaemonConfiguration.KioskKeyboard?
    @Option(name: .setting(\.kioskLogoFile), help: .setting(\.kioskLogoFile)) var kioskLogoFile: String?
    @Option(name: .setting(\.kioskAccentColor), help: .setting(\.kioskAccentColor)) var kioskAccentColor: String?
    @Option(name: .setting(\.kioskConsentFileKorean), help: .setting(\.kioskConsentFileKorean)) var kioskConsentFileKorean: String?
    @Option(name: .setting(\.kioskConsentFileEnglish), help: .setting(\.kioskConsentFileEnglish)) var kioskConsentFileEnglish: String?
    @Option(name: .setting(\.kioskLanguages), help: .setting(\.kioskLanguages)) var kioskLanguages: String?
    @Option(name: .setting(\.kioskStaffPinFile), help: .setting(\.kioskStaffPinFile)) var kioskStaffPinFile: String?
    @Option(name: .setting(\.kioskStaffPinOverPlainHTTP), help: .setting(\.kioskStaffPinOverPlainHTTP)) var kioskStaffPinOverPlainHTTP: DaemonConfiguration.StaffPinOverPlainHTTP?
    @Option(name: .setting(\.kioskSurveys), help: .setting(\.kioskSurveys)) var kioskSurveys: String?
    @Option(name: .setting(\.kioskOpenHours), help: .setting(\.kioskOpenHours)) var kioskOpenHours: String?
    @Option(name: .setting(\.kioskAttractFolder), help: .setting(\.kioskAttractFolder)) var kioskAttractFolder: String?
    @Option(name: .setting(\.kioskAttractSeconds), help: .setting(\.kioskAttractSeconds)) var kioskAttractSeconds: Int?
    @Option(name: .setting(\.logLevel), help: .setting(\.logLevel)) var logLevel: Logger.Level?
    @Flag(help: "Check the configuration (file, environment, flags) and exit: 0 when it is valid, 78 with what is wrong otherwise (the messages of a start). Starts nothing.") var checkConfig = false
    @Option(name: .setting(\.metricsListen), help: .setting(\.metricsListen)) var metricsListen: String?
    @Flag(help: "Start the mock survey server on a loopback port and a daemon against it, with its state in a demo directory.") var demo = false
    @Option(help: "The mock fixtures folder used by --demo.") var fixtures = "mock"

    /// The settings given as flags: the highest-priority source.
    var flags: DaemonConfiguration.Overrides {
        var flags = DaemonConfiguration.Overrides()
        flags[\.serverURL] = serverURL
        flags[\.defaultLanguage] = lang
        flags[\.firstStage] = firstStage
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
        flags[\.encryptionKeyFile] = encryptionKeyFile
        flags[\.encryptionOldKeyFiles] = encryptionOldKeyFiles
        flags[\.kioskListen] = kioskListen
        flags[\.kioskAccess] = kioskAccess
        flags[\.kioskTitleEnglish] = kioskTitleEn
        flags[\.kioskTitleKorean] = kioskTitleKo
        flags[\.kioskEndScreenSeconds] = kioskEndScreen
        flags[\.kioskIdleSeconds] = kioskIdle
        flags[\.kioskIdleCountdownSeconds] = kioskIdleCountdown
        flags[\.kioskKeyboard] = kioskKeyboard
        flags[\.kioskLogoFile] = kioskLogoFile
        flags[\.kioskAccentColor] = kioskAccentColor
        flags[\.kioskConsentFileKorean] = kioskConsentFileKorean
        flags[\.kioskConsentFileEnglish] = kioskConsentFileEnglish
        flags[\.kioskLanguages] = kioskLanguages
        flags[\.kioskStaffPinFile] = kioskStaffPinFile
        flags[\.kioskStaffPinOverPlainHTTP] = kioskStaffPinOverPlainHTTP
        flags[\.kioskSurveys] = kioskSurveys
        flags[\.kioskOpenHours] = kioskOpenHours
        flags[\.kioskAttractFolder] = kioskAttractFolder
        flags[\.kioskAttractSeconds] = kioskAttractSeconds
        flags[\.logLevel] = logLevel
        flags[\.metricsListen] = metricsListen
        flags[\.deviceID] = deviceID
        return flags
    }

    /// The allocator is set up before anything runs on another thread (`Daemon.prepareMemory()`).
    static func main() async {
        Daemon.prepareMemory()
        await main(nil)
    }

    func run() async throws {
        umask(0o077)
        let environment = ProcessInfo.processInfo.environment
        // Until the configuration is resolved, the flag's level; then the configured one.
        DaemonLogLevel.shared.level = logLevel ?? .info
        let journal = DaemonLogHandler.standardErrorIsJournal(environment: environment)
        LoggingSystem.bootstrap { label in DaemonLogHandler(label: label, journal: journal) }
        let logger = Logger(label: "surveyd")
        // Log lines are written by a thread of their own: the ones still waiting go out before
        // the process exits, however it exits (a stderr that takes nothing delays it 2 s at most).
        defer { LogLineWriter.standardError.flush(timeout: .seconds(2)) }
        do {
            if checkConfig {
                try await check(environment: environment)
                return
            }
            if demo {
                try await DemoMode.run(fixtures: fixtures, configurationFile: config, environment: environment, flags: flags, logger: logger)
                return
            }
            let (file, flags, userID) = (config, flags, getuid())
            let resolved = try await DaemonConfiguration.resolve(file: file, environment: environment, flags: flags, userID: userID)
            try await DaemonMain.run(configuration: resolved, logger: logger, environment: environment, reload: { () async throws(ConfigurationError) in
                try await DaemonConfiguration.resolve(file: file, environment: environment, flags: flags, userID: userID)
            })
        } catch let error as ConfigurationError {
            Self.fail("surveyd: \(error)")
            throw ExitCode(78)  // EX_CONFIG
        } catch let error as DemoDirectoryError {
            Self.fail("surveyd: \(error.message)")
            throw ExitCode(78)
        } catch let error as DaemonStartError {
            Self.fail("surveyd: \(error.message)")
            throw ExitCode.failure
        }
    }

    /// Writes `message` on stderr after the log lines before it.
    static func fail(_ message: String) {
        LogLineWriter.standardError.flush(timeout: .seconds(2))
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

extension SurveydCommand {
    /// `--check-config`: resolves and checks the configuration as a start does, with the same
    /// messages, and prints the settings; opens, creates and binds nothing. Exit 0 or 78.
    func check(environment: [String: String]) async throws {
        if demo { throw ValidationError("--check-config checks the daemon's configuration; leave out --demo") }
        let resolved = try await DaemonConfiguration.resolve(file: config, environment: environment, flags: flags, userID: getuid())
        do {
            try Daemon.check(resolved)
        } catch let error as DaemonStartError {
            Self.fail("surveyd: \(error.message)")
            throw ExitCode(78)
        }
        print("surveyd: the configuration is valid")
        print(Daemon.describe(resolved))
    }
}

extension DaemonConfiguration.Durability: ExpressibleByArgument {}
extension DaemonConfiguration.KioskAccess: ExpressibleByArgument {}
extension DaemonConfiguration.KioskKeyboard: ExpressibleByArgument {}
extension DaemonConfiguration.StaffPinOverPlainHTTP: ExpressibleByArgument {}
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

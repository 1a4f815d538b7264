import Foundation
import Storage
import SurveyDaemon
import SurveyTesting
import Testing

@Suite struct ConfigurationTests {
    @Test func defaultsFollowSystemdThenXDGThenHome() {
        let systemd = DaemonConfiguration(environment: ["STATE_DIRECTORY": "/var/lib/surveyd", "RUNTIME_DIRECTORY": "/run/surveyd", "HOME": "/home/k"], userID: 1000)
        #expect(systemd.stateDirectory == "/var/lib/surveyd")
        #expect(systemd.socketPath == "/run/surveyd/surveyd.sock")
        let xdg = DaemonConfiguration(environment: ["XDG_STATE_HOME": "/x/state", "XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/k"], userID: 1000)
        #expect(xdg.stateDirectory == "/x/state/surveyd")
        #expect(xdg.socketPath == "/run/user/1000/surveyd.sock")
        let home = DaemonConfiguration(environment: ["HOME": "/home/k"], userID: 1000)
        #expect(home.stateDirectory == "/home/k/.local/state/surveyd")
        #expect(home.socketPath == "/tmp/surveyd-1000/surveyd.sock")
        #expect(home.defaultLanguage == "ko")
        #expect(home.durability == .strict)
        #expect(home.backoffBaseSeconds == 1)
        #expect(home.backoffCapSeconds == 300)
    }

    @Test func fileThenEnvironmentThenFlags() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("surveyd.json")
        try Data(#"{"serverURL":"http://file.example","defaultLanguage":"en","idleSessionTimeoutSeconds":60,"durability":"relaxed"}"#.utf8).write(to: file)
        var flags = DaemonConfiguration.Overrides()
        flags.idleSessionTimeoutSeconds = 30
        let c = try DaemonConfiguration.resolve(
            file: file.path,
            environment: ["HOME": "/h", "SURVEYD_SERVER_URL": "https://env.example:8443", "SURVEYD_IDLE_TIMEOUT": "45"],
            flags: flags, userID: 1
        )
        #expect(c.serverURL == "https://env.example:8443")
        #expect(c.defaultLanguage == "en")
        #expect(c.durability == .relaxed)
        #expect(c.journalDurability == .relaxed(syncInterval: .milliseconds(200)))
        #expect(c.idleSessionTimeoutSeconds == 30)
        #expect(c.queueDiskCapBytes == nil)
    }

    @Test func queueDiskCapFromFileAndEnvironment() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("surveyd.json")
        try Data(#"{"queueDiskCapMegabytes":64}"#.utf8).write(to: file)
        let fromFile = try DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h"], flags: .init(), userID: 1)
        #expect(fromFile.queueDiskCapBytes == 64 << 20)
        #expect(fromFile.journalDurability == .strict)
        let fromEnvironment = try DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h", "SURVEYD_QUEUE_DISK_CAP_MB": "2"], flags: .init(), userID: 1)
        #expect(fromEnvironment.queueDiskCapBytes == 2 << 20)
        #expect(throws: ConfigurationError.self) {
            try DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h", "SURVEYD_QUEUE_DISK_CAP_MB": "0"], flags: .init(), userID: 1)
        }
    }

    @Test func errorsNameTheSource() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(message(env: ["SURVEYD_BACKOFF_CAP": "soon"]) == #"surveyd configuration: environment variable SURVEYD_BACKOFF_CAP: "soon" is not a number"#)
        #expect(message(env: ["SURVEYD_DURABILITY": "maybe"]) == #"surveyd configuration: environment variable SURVEYD_DURABILITY: "maybe" is not strict or relaxed"#)
        #expect(message(env: ["SURVEYD_LANG": "fr"]) == #"surveyd configuration: defaultLanguage: "fr" is not ko or en"#)
        #expect(message(env: ["SURVEYD_SERVER_URL": "ftp://x"])?.contains("is not an http or https URL") == true)
        #expect(message(file: dir.appending("missing.json").path)?.contains("cannot be read") == true)
        let bad = dir.appending("bad.json")
        try Data(#"{"maxInFlight":"many"}"#.utf8).write(to: bad)
        #expect(message(file: bad.path)?.hasPrefix("surveyd configuration: configuration file \(bad.path): \"maxInFlight\" has the wrong type") == true)
        try Data(#"{"durability":"fast"}"#.utf8).write(to: bad)
        #expect(message(file: bad.path) == "surveyd configuration: configuration file \(bad.path): durability must be \"strict\" or \"relaxed\"")
        try Data("{".utf8).write(to: bad)
        #expect(message(file: bad.path) == "surveyd configuration: configuration file \(bad.path): is not valid JSON")
        var flags = DaemonConfiguration.Overrides()
        flags.socketPath = "/" + String(repeating: "s", count: 120)
        #expect(message(flags: flags)?.contains("a Unix socket path must be under 108 bytes") == true)
        flags = .init()
        flags.backoffBaseSeconds = 10
        flags.backoffCapSeconds = 5
        #expect(message(flags: flags)?.contains("need 0 < base <= cap") == true)
    }

    /// The error a configuration resolves to, as an operator reads it; nil when it resolves.
    func message(file: String? = nil, env: [String: String] = [:], flags: DaemonConfiguration.Overrides = .init()) -> String? {
        do {
            _ = try DaemonConfiguration.resolve(file: file, environment: env.merging(["HOME": "/h"]) { a, _ in a }, flags: flags, userID: 1)
            return nil
        } catch {
            return error.description
        }
    }

    @Test(arguments: ["SURVEYD_MAX_IN_FLIGHT", "SURVEYD_MAX_REQUEST_BYTES", "SURVEYD_QUEUE_DISK_CAP_MB"])
    func wholeNumberVariablesRejectWhatIsNotAnInt(variable: String) {
        for text in ["1e20", "-1e19", "2.5", "inf", "nan"] {
            #expect(message(env: [variable: text]) == #"surveyd configuration: environment variable \#(variable): "\#(text)" is not a whole number"#, "\(text)")
        }
    }

    @Test(arguments: ["SURVEYD_BACKOFF_BASE", "SURVEYD_BACKOFF_CAP", "SURVEYD_IDLE_TIMEOUT", "SURVEYD_DELIVERY_WAIT", "SURVEYD_CONNECTIVITY_CACHE", "SURVEYD_DEFINITION_FETCH_DEADLINE"])
    func secondsVariablesMustBeFinite(variable: String) {
        for text in ["inf", "-inf", "nan"] {
            #expect(message(env: [variable: text]) == #"surveyd configuration: environment variable \#(variable): "\#(text)" is not a finite number"#, "\(text)")
        }
    }

    @Test func secondsSettingsHaveUpperBounds() throws {
        var flags = DaemonConfiguration.Overrides()
        flags.idleSessionTimeoutSeconds = .infinity
        #expect(message(flags: flags) == "surveyd configuration: idleSessionTimeoutSeconds: must be above 0 and at most 604800 (1 week), got inf")
        flags = .init()
        flags.deliveryWaitSeconds = 1e300
        #expect(message(flags: flags) == "surveyd configuration: deliveryWaitSeconds: must be from 0 to 604800 (1 week), got 1e+300")
        flags = .init()
        flags.connectivityCacheSeconds = .nan
        #expect(message(flags: flags) == "surveyd configuration: connectivityCacheSeconds: must be from 0 to 604800 (1 week), got nan")
        flags = .init()
        flags.backoffCapSeconds = 1e20
        #expect(message(flags: flags)?.hasPrefix("surveyd configuration: backoffBaseSeconds/backoffCapSeconds: need 0 < base <= cap <= 86400 (1 day)") == true)
        flags = .init()
        flags.backoffBaseSeconds = .nan
        #expect(message(flags: flags)?.contains("need 0 < base <= cap") == true)
        flags = .init()
        flags.queueDiskCapMegabytes = Int.max
        #expect(message(flags: flags)?.hasPrefix("surveyd configuration: queueDiskCapMegabytes: must be from 1 to 1048576") == true)
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("surveyd.json")
        try Data(#"{"idleSessionTimeoutSeconds":1e300}"#.utf8).write(to: file)
        #expect(message(file: file.path)?.hasPrefix("surveyd configuration: idleSessionTimeoutSeconds: must be above 0 and at most 604800") == true)
    }

    @Test func definitionFetchDeadlineFromEachSourceWithinZeroToThirtySeconds() throws {
        #expect(DaemonConfiguration(environment: ["HOME": "/h"], userID: 1).definitionFetchDeadline == .seconds(3))
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("surveyd.json")
        try Data(#"{"definitionFetchDeadlineSeconds":5}"#.utf8).write(to: file)
        #expect(try DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h"], flags: .init(), userID: 1).definitionFetchDeadline == .seconds(5))
        let fromEnvironment = try DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h", "SURVEYD_DEFINITION_FETCH_DEADLINE": "0.5"], flags: .init(), userID: 1)
        #expect(fromEnvironment.definitionFetchDeadline == .milliseconds(500))
        var flags = DaemonConfiguration.Overrides()
        flags.definitionFetchDeadlineSeconds = 0
        #expect(try DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h", "SURVEYD_DEFINITION_FETCH_DEADLINE": "0.5"], flags: flags, userID: 1).definitionFetchDeadline == .zero)
        flags.definitionFetchDeadlineSeconds = 30
        #expect(message(flags: flags) == nil)
        for bad in [30.5, -1, .nan, .infinity] {
            flags.definitionFetchDeadlineSeconds = bad
            #expect(message(flags: flags) == "surveyd configuration: definitionFetchDeadlineSeconds: must be from 0 to 30 (the survey server's read timeout), got \(bad)")
        }
    }

    @Test func largestAcceptedSettingsBecomeDurations() throws {
        var flags = DaemonConfiguration.Overrides()
        flags.idleSessionTimeoutSeconds = 604_800
        flags.deliveryWaitSeconds = 604_800
        flags.connectivityCacheSeconds = 604_800
        flags.backoffBaseSeconds = 86_400
        flags.backoffCapSeconds = 86_400
        flags.queueDiskCapMegabytes = 1 << 20
        let c = try DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h", "SURVEYD_MAX_IN_FLIGHT": "64", "SURVEYD_MAX_REQUEST_BYTES": "1e6"], flags: flags, userID: 1)
        #expect(c.idleSessionTimeout == .seconds(604_800))
        #expect(c.deliveryWait == .seconds(604_800))
        #expect(c.connectivityCache == .seconds(604_800))
        #expect(c.backoffBase == .seconds(86_400))
        #expect(c.backoffCap == .seconds(86_400))
        #expect(c.queueDiskCapBytes == 1 << 40)
        #expect(c.maxInFlight == 64)
        #expect(c.maxRequestBytes == 1_000_000)
        let fractional = try DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h", "SURVEYD_DELIVERY_WAIT": "0.25"], flags: .init(), userID: 1)
        #expect(fractional.deliveryWait == .milliseconds(250))
    }
}

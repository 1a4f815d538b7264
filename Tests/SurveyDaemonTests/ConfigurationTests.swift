import Entities
import Foundation
import Storage
import SurveyDaemon
import SurveyTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct ConfigurationTests {
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
        #expect(home.defaultLanguage == .ko)
        #expect(home.durability == .strict)
        #expect(home.backoffBaseSeconds == 1)
        #expect(home.backoffCapSeconds == 300)
        #expect(home.idleSessionTimeoutSeconds == 900)
        #expect(home.deliveryWaitSeconds == 2)
        #expect(home.maxInFlight == 4)
        #expect(home.connectivityCacheSeconds == 1)
        #expect(home.maxRequestBytes == 65536)
        #expect(home.serverURL == nil && home.socketGroup == nil && home.tokenFile == nil && home.queueDiskCapMegabytes == nil)
    }

    @Test func fileThenEnvironmentThenFlags() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("surveyd.json")
        try Data(#"{"serverURL":"http://file.example","defaultLanguage":"en","idleSessionTimeoutSeconds":60,"durability":"relaxed","maxInFlight":8}"#.utf8).write(to: file)
        var flags = DaemonConfiguration.Overrides()
        flags[\.idleSessionTimeoutSeconds] = 30
        let c = try await DaemonConfiguration.resolve(
            file: file.path,
            environment: ["HOME": "/h", "SURVEYD_SERVER_URL": "https://env.example:8443", "SURVEYD_IDLE_TIMEOUT": "45", "SURVEYD_MAX_IN_FLIGHT": "6"],
            flags: flags, userID: 1
        )
        #expect(c.serverURL == "https://env.example:8443")
        #expect(c.defaultLanguage == .en)
        #expect(c.durability == .relaxed)
        #expect(c.journalDurability == .relaxed(syncInterval: .milliseconds(200)))
        #expect(c.idleSessionTimeoutSeconds == 30)
        #expect(c.maxInFlight == 6)
        #expect(c.queueDiskCapBytes == nil)
        #expect(c.stateDirectory == "/h/.local/state/surveyd")
    }

    @Test func queueDiskCapFromFileAndEnvironment() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("surveyd.json")
        try Data(#"{"queueDiskCapMegabytes":64}"#.utf8).write(to: file)
        let fromFile = try await DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h"], userID: 1)
        #expect(fromFile.queueDiskCapBytes == 64 << 20)
        #expect(fromFile.journalDurability == .strict)
        let fromEnvironment = try await DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h", "SURVEYD_QUEUE_DISK_CAP_MB": "2"], userID: 1)
        #expect(fromEnvironment.queueDiskCapBytes == 2 << 20)
        await #expect(throws: ConfigurationError.self) {
            try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h", "SURVEYD_QUEUE_DISK_CAP_MB": "0"], userID: 1)
        }
    }

    @Test func errorsNameTheSource() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(await message(env: ["SURVEYD_BACKOFF_CAP": "soon"]) == #"surveyd configuration: environment variable SURVEYD_BACKOFF_CAP: "soon" is not a number"#)
        #expect(await message(env: ["SURVEYD_DURABILITY": "maybe"]) == #"surveyd configuration: environment variable SURVEYD_DURABILITY: "maybe" is not strict or relaxed"#)
        #expect(await message(env: ["SURVEYD_LANG": "fr"]) == #"surveyd configuration: environment variable SURVEYD_LANG: "fr" is not ko or en"#)
        #expect(await message(env: ["SURVEYD_DEVICE_ID": "kiosk 7"]) == #"surveyd configuration: environment variable SURVEYD_DEVICE_ID: "kiosk 7" is not a device id; use 1 to 64 letters, digits, -, _ or ."#)
        #expect(await message(env: ["SURVEYD_PROBE_INTERVAL_CAP": "1"]) == "surveyd configuration: environment variable SURVEYD_PROBE_INTERVAL_CAP: must be from 2 to 86400 (1 day), got 1.0")
        #expect(await message(env: ["SURVEYD_SERVER_URL": "ftp://x"]) == #"surveyd configuration: environment variable SURVEYD_SERVER_URL: "ftp://x" is not an http or https URL with a host, e.g. https://survey.example.org"#)
        #expect(await message(file: dir.appending("missing.json").path)?.hasPrefix("surveyd configuration: configuration file \(dir.appending("missing.json").path): cannot be read") == true)
        let bad = dir.appending("bad.json")
        try Data(#"{"maxInFlight":"many"}"#.utf8).write(to: bad)
        #expect(await message(file: bad.path) == "surveyd configuration: configuration file \(bad.path), key maxInFlight: \"many\" has the wrong type; give a whole number")
        try Data(#"{"durability":"fast"}"#.utf8).write(to: bad)
        #expect(await message(file: bad.path) == "surveyd configuration: configuration file \(bad.path), key durability: \"fast\" is not strict or relaxed")
        try Data("{".utf8).write(to: bad)
        #expect(await message(file: bad.path) == "surveyd configuration: configuration file \(bad.path): is not valid JSON")
        var flags = DaemonConfiguration.Overrides()
        flags[\.socketPath] = "/" + String(repeating: "s", count: 120)
        #expect(await message(flags: flags) == "surveyd configuration: flag --socket: \"/\(String(repeating: "s", count: 120))\" is 121 bytes; a Unix socket path must be under 108 bytes, choose a shorter one")
        #expect(await message(env: ["SURVEYD_BACKOFF_BASE": "10", "SURVEYD_BACKOFF_CAP": "5"])
            == "surveyd configuration: backoffBaseSeconds/backoffCapSeconds: need 0 < base <= cap <= 86400 (1 day), got base 10.0 (environment variable SURVEYD_BACKOFF_BASE) and cap 5.0 (environment variable SURVEYD_BACKOFF_CAP)")
        #expect(await message(env: ["SURVEYD_BACKOFF_BASE": "400"])
            == "surveyd configuration: backoffBaseSeconds/backoffCapSeconds: need 0 < base <= cap <= 86400 (1 day), got base 400.0 (environment variable SURVEYD_BACKOFF_BASE) and cap 300.0 (default backoffCapSeconds)")
    }

    /// The same wrong value from each source is reported with that source's name for it.
    @Test func eachSourceNamesItselfAndTheValue() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("surveyd.json")
        try Data(#"{"maxInFlight":0,"defaultLanguage":"fr"}"#.utf8).write(to: file)
        #expect(await message(file: file.path) == "surveyd configuration: configuration file \(file.path), key defaultLanguage: \"fr\" is not ko or en")
        try Data(#"{"maxInFlight":0}"#.utf8).write(to: file)
        #expect(await message(file: file.path) == "surveyd configuration: configuration file \(file.path), key maxInFlight: must be from 1 to 64, got 0")
        #expect(await message(env: ["SURVEYD_MAX_IN_FLIGHT": "0"]) == "surveyd configuration: environment variable SURVEYD_MAX_IN_FLIGHT: must be from 1 to 64, got 0")
        var flags = DaemonConfiguration.Overrides()
        flags[\.maxInFlight] = 65
        #expect(await message(flags: flags) == "surveyd configuration: flag --max-in-flight: must be from 1 to 64, got 65")
        let long = "/" + String(repeating: "d", count: 110)
        var demo = DaemonConfiguration.Overrides(.demoMode)
        demo[\.socketPath] = long + "/surveyd.sock"
        #expect(await message(demo: demo)?.hasPrefix("surveyd configuration: demo mode's socketPath: \"\(long)/surveyd.sock\" is 124 bytes") == true)
        #expect(await message(env: ["RUNTIME_DIRECTORY": long])?.hasPrefix("surveyd configuration: default socketPath: \"\(long)/surveyd.sock\" is 124 bytes") == true)
    }

    /// A wrong value is an error even where a higher source overrides it: it would take effect
    /// the day the override is dropped.
    @Test func valuesAHigherSourceOverridesAreCheckedToo() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("surveyd.json")
        try Data(#"{"maxInFlight":0}"#.utf8).write(to: file)
        var flags = DaemonConfiguration.Overrides()
        flags[\.maxInFlight] = 2
        #expect(await message(file: file.path, flags: flags) == "surveyd configuration: configuration file \(file.path), key maxInFlight: must be from 1 to 64, got 0")
        #expect(await message(env: ["SURVEYD_MAX_IN_FLIGHT": "many"], flags: flags) == #"surveyd configuration: environment variable SURVEYD_MAX_IN_FLIGHT: "many" is not a number"#)
        try Data(#"{"maxInFlight":3}"#.utf8).write(to: file)
        let c = try await DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h", "SURVEYD_MAX_IN_FLIGHT": "5"], flags: flags, userID: 1)
        #expect(c.maxInFlight == 2)
        var demo = DaemonConfiguration.Overrides(.demoMode)
        demo[\.socketPath] = "/demo/surveyd.sock"
        flags[\.socketPath] = "/flag/surveyd.sock"
        let withDemo = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h"], flags: flags, demo: demo, userID: 1)
        #expect(withDemo.socketPath == "/demo/surveyd.sock")
    }

    @Test func fileValuesOfTheWrongShape() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("surveyd.json")
        let cases: [(String, String)] = [
            (#"{"serverURL":5}"#, "key serverURL: 5 has the wrong type; give text"),
            (#"{"maxInFlight":2.5}"#, "key maxInFlight: 2.5 is not a whole number"),
            (#"{"deliveryWaitSeconds":"soon"}"#, "key deliveryWaitSeconds: \"soon\" has the wrong type; give a number of seconds"),
            (#"[1]"#, "must hold one JSON object of settings"),
        ]
        for (json, expected) in cases {
            try Data(json.utf8).write(to: file)
            #expect(await message(file: file.path)?.hasPrefix("surveyd configuration: configuration file \(file.path)\(expected.hasPrefix("key") ? ", " : ": ")\(expected)") == true, "\(json)")
        }
        // Unknown keys, nested objects and nulls are ignored.
        try Data(#"{"maxInflight":9,"other":{"maxInFlight":9},"tokenFile":null,"maxInFlight":3}"#.utf8).write(to: file)
        let c = try await DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h"], userID: 1)
        #expect(c.maxInFlight == 3 && c.tokenFile == nil)
    }

    /// The error a configuration resolves to, as an operator reads it; nil when it resolves.
    func message(file: String? = nil, env: [String: String] = [:], flags: DaemonConfiguration.Overrides = .init(), demo: DaemonConfiguration.Overrides? = nil) async -> String? {
        do {
            _ = try await DaemonConfiguration.resolve(file: file, environment: env.merging(["HOME": "/h"]) { a, _ in a }, flags: flags, demo: demo, userID: 1)
            return nil
        } catch {
            return error.description
        }
    }

    @Test(arguments: ["SURVEYD_MAX_IN_FLIGHT", "SURVEYD_MAX_REQUEST_BYTES", "SURVEYD_QUEUE_DISK_CAP_MB"])
    func wholeNumberVariablesRejectWhatIsNotAnInt(variable: String) async {
        for text in ["1e20", "-1e19", "2.5", "inf", "nan"] {
            #expect(await message(env: [variable: text]) == #"surveyd configuration: environment variable \#(variable): "\#(text)" is not a whole number"#, "\(text)")
        }
    }

    @Test(arguments: ["SURVEYD_BACKOFF_BASE", "SURVEYD_BACKOFF_CAP", "SURVEYD_IDLE_TIMEOUT", "SURVEYD_DELIVERY_WAIT", "SURVEYD_CONNECTIVITY_CACHE", "SURVEYD_DEFINITION_FETCH_DEADLINE"])
    func secondsVariablesMustBeFinite(variable: String) async {
        for text in ["inf", "-inf", "nan"] {
            #expect(await message(env: [variable: text]) == #"surveyd configuration: environment variable \#(variable): "\#(text)" is not a finite number"#, "\(text)")
        }
    }

    @Test func definitionFetchDeadlineFromEachSourceWithinZeroToThirtySeconds() async throws {
        #expect(DaemonConfiguration(environment: ["HOME": "/h"], userID: 1).definitionFetchDeadline == .seconds(3))
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("surveyd.json")
        try Data(#"{"definitionFetchDeadlineSeconds":5}"#.utf8).write(to: file)
        #expect(try await DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h"], userID: 1).definitionFetchDeadline == .seconds(5))
        let fromEnvironment = try await DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h", "SURVEYD_DEFINITION_FETCH_DEADLINE": "0.5"], userID: 1)
        #expect(fromEnvironment.definitionFetchDeadline == .milliseconds(500))
        var flags = DaemonConfiguration.Overrides()
        flags[\.definitionFetchDeadlineSeconds] = 0
        #expect(try await DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h", "SURVEYD_DEFINITION_FETCH_DEADLINE": "0.5"], flags: flags, userID: 1).definitionFetchDeadline == .zero)
        flags[\.definitionFetchDeadlineSeconds] = 30
        #expect(await message(flags: flags) == nil)
        for bad in [30.5, -1] {
            flags[\.definitionFetchDeadlineSeconds] = bad
            #expect(await message(flags: flags) == "surveyd configuration: flag --definition-fetch-deadline: must be from 0 to 30 (the survey server's read timeout), got \(bad)")
        }
        #expect(await message(env: ["SURVEYD_DEFINITION_FETCH_DEADLINE": "31"]) == "surveyd configuration: environment variable SURVEYD_DEFINITION_FETCH_DEADLINE: must be from 0 to 30 (the survey server's read timeout), got 31.0")
    }

    @Test func secondsSettingsHaveUpperBounds() async throws {
        var flags = DaemonConfiguration.Overrides()
        flags[\.idleSessionTimeoutSeconds] = .infinity
        #expect(await message(flags: flags) == "surveyd configuration: flag --idle-timeout: must be above 0 and at most 604800 (1 week), got inf")
        flags = .init()
        flags[\.deliveryWaitSeconds] = 1e300
        #expect(await message(flags: flags) == "surveyd configuration: flag --delivery-wait: must be from 0 to 604800 (1 week), got 1e+300")
        flags = .init()
        flags[\.connectivityCacheSeconds] = .nan
        #expect(await message(flags: flags) == "surveyd configuration: override connectivityCacheSeconds: must be from 0 to 604800 (1 week), got nan")
        #expect(await message(env: ["SURVEYD_BACKOFF_CAP": "1e20"]) == "surveyd configuration: environment variable SURVEYD_BACKOFF_CAP: must be above 0 and at most 86400 (1 day), got 1e+20")
        flags = .init()
        flags[\.backoffBaseSeconds] = .nan
        #expect(await message(flags: flags) == "surveyd configuration: override backoffBaseSeconds: must be above 0 and at most 86400 (1 day), got nan")
        flags = .init()
        flags[\.queueDiskCapMegabytes] = Int.max
        #expect(await message(flags: flags) == "surveyd configuration: override queueDiskCapMegabytes: must be from 1 to 1048576 (megabytes), got \(Int.max); leave it out for no cap")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("surveyd.json")
        try Data(#"{"idleSessionTimeoutSeconds":1e300}"#.utf8).write(to: file)
        #expect(await message(file: file.path) == "surveyd configuration: configuration file \(file.path), key idleSessionTimeoutSeconds: must be above 0 and at most 604800 (1 week), got 1e+300")
    }

    @Test func largestAcceptedSettingsBecomeDurations() async throws {
        var flags = DaemonConfiguration.Overrides()
        flags[\.idleSessionTimeoutSeconds] = 604_800
        flags[\.deliveryWaitSeconds] = 604_800
        flags[\.connectivityCacheSeconds] = 604_800
        flags[\.backoffBaseSeconds] = 86_400
        flags[\.backoffCapSeconds] = 86_400
        flags[\.queueDiskCapMegabytes] = 1 << 20
        let c = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h", "SURVEYD_MAX_IN_FLIGHT": "64", "SURVEYD_MAX_REQUEST_BYTES": "1e6"], flags: flags, userID: 1)
        #expect(c.idleSessionTimeout == .seconds(604_800))
        #expect(c.deliveryWait == .seconds(604_800))
        #expect(c.connectivityCache == .seconds(604_800))
        #expect(c.backoffBase == .seconds(86_400))
        #expect(c.backoffCap == .seconds(86_400))
        #expect(c.queueDiskCapBytes == 1 << 40)
        #expect(c.maxInFlight == 64)
        #expect(c.maxRequestBytes == 1_000_000)
        let fractional = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h", "SURVEYD_DELIVERY_WAIT": "0.25"], userID: 1)
        #expect(fractional.deliveryWait == .milliseconds(250))
    }
}

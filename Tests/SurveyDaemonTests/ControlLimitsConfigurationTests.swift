import Foundation
import SurveyDaemon
import SurveyTesting
import Testing

/// The control connections' timeouts and cap, from each source, with their bounds.
extension ConfigurationTests {
    @Test(.timeLimit(.minutes(5))) func controlLimitsDefaultAndComeFromEachSource() async throws {
        let defaults = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h"], flags: .init(), userID: 1)
        #expect(defaults.controlLimits == ControlConnectionLimits(readTimeout: .seconds(10), idleTimeout: .seconds(60), maxConnections: 256))
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("surveyd.json")
        try Data(#"{"controlReadTimeoutSeconds":3,"controlIdleTimeoutSeconds":30,"maxControlConnections":32}"#.utf8).write(to: file)
        let fromFile = try await DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h"], flags: .init(), userID: 1)
        #expect(fromFile.controlLimits == ControlConnectionLimits(readTimeout: .seconds(3), idleTimeout: .seconds(30), maxConnections: 32))
        let environment = ["HOME": "/h", "SURVEYD_CONTROL_READ_TIMEOUT": "2.5", "SURVEYD_CONTROL_IDLE_TIMEOUT": "20", "SURVEYD_MAX_CONTROL_CONNECTIONS": "16"]
        let fromEnvironment = try await DaemonConfiguration.resolve(file: file.path, environment: environment, flags: .init(), userID: 1)
        #expect(fromEnvironment.controlLimits == ControlConnectionLimits(readTimeout: .milliseconds(2500), idleTimeout: .seconds(20), maxConnections: 16))
        var flags = DaemonConfiguration.Overrides()
        flags[\.controlReadTimeoutSeconds] = 1
        flags[\.controlIdleTimeoutSeconds] = 86_400
        flags[\.maxControlConnections] = 65_536
        let fromFlags = try await DaemonConfiguration.resolve(file: file.path, environment: environment, flags: flags, userID: 1)
        #expect(fromFlags.controlLimits == ControlConnectionLimits(readTimeout: .seconds(1), idleTimeout: .seconds(86_400), maxConnections: 65_536))
    }

    @Test(.timeLimit(.minutes(5))) func controlLimitsOutOfRangeAreNamed() async {
        var flags = DaemonConfiguration.Overrides()
        flags[\.controlReadTimeoutSeconds] = 0
        #expect(await message(flags: flags) == "surveyd configuration: flag --control-read-timeout: must be above 0 and at most 3600 (1 hour), got 0.0")
        flags = .init()
        flags[\.controlReadTimeoutSeconds] = .nan
        #expect(await message(flags: flags) == "surveyd configuration: flag --control-read-timeout: must be above 0 and at most 3600 (1 hour), got nan")
        flags = .init()
        flags[\.controlIdleTimeoutSeconds] = 86_401
        #expect(await message(flags: flags) == "surveyd configuration: flag --control-idle-timeout: must be above 0 and at most 86400 (1 day), got 86401.0")
        flags = .init()
        flags[\.maxControlConnections] = 0
        #expect(await message(flags: flags) == "surveyd configuration: flag --max-control-connections: must be from 1 to 65536, got 0")
        #expect(await message(env: ["SURVEYD_MAX_CONTROL_CONNECTIONS": "2.5"]) == #"surveyd configuration: environment variable SURVEYD_MAX_CONTROL_CONNECTIONS: "2.5" is not a whole number"#)
        #expect(await message(env: ["SURVEYD_CONTROL_READ_TIMEOUT": "soon"]) == #"surveyd configuration: environment variable SURVEYD_CONTROL_READ_TIMEOUT: "soon" is not a number"#)
        #expect(await message(env: ["SURVEYD_CONTROL_IDLE_TIMEOUT": "inf"]) == #"surveyd configuration: environment variable SURVEYD_CONTROL_IDLE_TIMEOUT: "inf" is not a finite number"#)
    }
}

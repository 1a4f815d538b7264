// SurveyDemo: `surveyd --demo`, the daemon wired to the mock survey server in the same process.
// It lives apart from the daemon's logic so that the daemon itself never depends on the mock.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import MockServer
import SurveyDaemon

/// `surveyd --demo`: the mock survey server on a loopback port and a daemon against it.
public enum DemoMode {
    public static func run(fixtures: String, configurationFile: String?, environment: [String: String], flags: DaemonConfiguration.Overrides, logger: Logger) async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: fixtures + "/questions", isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DaemonStartError("the mock fixtures \(fixtures)/questions are not there; run surveyd --demo from the repository root or give --fixtures PATH")
        }
        let demoDirectory = flags[\.stateDirectory] ?? (NSTemporaryDirectory().trimmingSuffix("/") + "/surveyd-demo-\(getuid())")
        if flags[\.stateDirectory] == nil { try DemoDirectory.prepare(demoDirectory) }
        do {
            try FileManager.default.createDirectory(atPath: demoDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw DaemonStartError("cannot create the demo directory \(demoDirectory): \(error.localizedDescription); give another --state-dir")
        }
        var mockLogger = logger
        mockLogger.logLevel = .warning
        let record = demoDirectory + "/mock-record.jsonl"
        let mock = try await InProcessMockServer.start(
            configuration: MockServerConfiguration(fixtures: URL(fileURLWithPath: fixtures), recordFile: URL(fileURLWithPath: record)),
            logger: mockLogger)
        // Above the flags: the demo's own server and state; its socket unless --socket names one.
        var demo = DaemonConfiguration.Overrides(.demoMode)
        demo[\.serverURL] = "http://127.0.0.1:\(mock.port)"
        demo[\.stateDirectory] = demoDirectory + "/state"
        if flags[\.socketPath] == nil { demo[\.socketPath] = demoDirectory + "/surveyd.sock" }
        // The kiosk pages on a free loopback port, unless --kiosk-listen names an address.
        if flags[\.kioskListen] == nil { demo[\.kioskListen] = "127.0.0.1:0" }
        var resolved: DaemonConfiguration
        do {
            resolved = try await DaemonConfiguration.resolve(file: configurationFile, environment: environment, flags: flags, demo: demo, userID: getuid())
        } catch {
            try await mock.stop()
            throw error
        }
        // The demo survey's title on the welcome screen, unless the configuration gives one.
        if resolved.kioskTitleEnglish == nil, resolved.kioskTitleKorean == nil {
            resolved.kioskTitleEnglish = demoTitle.english
            resolved.kioskTitleKorean = demoTitle.korean
        }
        let configuration = resolved
        do {
            try await DaemonMain.run(configuration: configuration, logger: logger) { endpoints in
                let text = """
                    surveyd demo is running.
                      kiosk pages:        \(endpoints.kioskURL ?? "off") (open it in a browser to take the survey)
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

extension DemoMode {
    /// The title of the project's survey (the mock fixtures `mock/questions`), which asks about drinks.
    public static let demoTitle = (english: "Drinks survey", korean: "음료 설문")
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

// SurveyDemo: `surveyd --demo`, the daemon wired to the mock survey server in the same process.
// It lives apart from the daemon's logic so that the daemon itself never depends on the mock.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
public import Logging
import MockServer
public import SurveyDaemon

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
        // Answers encrypted at rest under a key of the demo's own, unless one is given. Kept
        // beside the state, it protects nothing: it is for the demo only (doc/security.md).
        if flags[\.encryptionKeyFile] == nil && environment["SURVEYD_ENCRYPTION_KEY_FILE"] == nil {
            demo[\.encryptionKeyFile] = try demoKey(in: demoDirectory + "/state")
        }
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

    /// The demo's own key, `demo-key` in its state directory: 32 random bytes, owner-only, made
    /// once and kept, so that a demo restarted on the same directory reads what it wrote.
    static func demoKey(in state: String) throws -> String {
        let path = state + "/demo-key"
        do {
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw DaemonStartError("cannot create the demo state directory \(state): \(error.localizedDescription); give another --state-dir")
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 {
            guard errno == EEXIST else { throw DaemonStartError("cannot create the demo key \(path) (errno \(errno)); give another --state-dir") }
            return path
        }
        defer { close(fd) }
        var generator = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let written = key.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == key.count, fsync(fd) == 0 else {
            unlink(path)
            throw DaemonStartError("cannot write the demo key \(path); free space or give another --state-dir")
        }
        return path
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

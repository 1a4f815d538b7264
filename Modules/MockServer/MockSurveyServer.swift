/// The MockServer module: a survey server for development, demos and tests, serving the project's
/// `mock/` fixtures over the contract in `doc/` (GET questionnaires, POST answers), with
/// idempotency, routing by `mock/routing.json`, a record file and fault injection. The
/// `mock-survey-server` app is a thin wrapper; the daemon's demo mode can embed it.
public import Entities
public import Foundation
import Hummingbird
public import Logging
import NIOCore
public import ServiceLifecycle
import Synchronization

/// How the mock server runs.
public struct MockServerConfiguration: Sendable {
    /// The fixtures folder holding `questions/` and `routing.json`.
    public var fixtures: URL
    public var host: String
    /// 0 lets the system choose; the bound port is reported by `MockSurveyServer.port()`.
    public var port: Int
    /// When given, every accepted submission is appended to it as one JSON line.
    public var recordFile: URL?
    public var faults: Faults

    public init(fixtures: URL, host: String = "127.0.0.1", port: Int = 0, recordFile: URL? = nil, faults: Faults = Faults()) {
        self.fixtures = fixtures
        self.host = host
        self.port = port
        self.recordFile = recordFile
        self.faults = faults
    }
}

/// The error the mock server meets at start: unreadable fixtures or routing.
public struct MockServerError: Error, Sendable, CustomStringConvertible {
    public var code: String
    public var message: String
    public var description: String { message }
}

/// One line of the record file.
public struct RecordedSubmission: Sendable, Codable, Hashable {
    public var typeID: String
    public var lang: String
    public var idempotencyKey: String?
    public var answers: [String: AnswerValue]
    public var nextTypeId: String?
    /// The upload's `Survey-Device-Id`, when it sent one.
    public var deviceId: String?
    /// The upload's `Survey-Sequence` as sent, when it sent one.
    public var sequence: String?
    /// The upload's `Survey-Paradata` and `Survey-Quality`, when it sent them.
    public var paradata: String?
    public var quality: String?
    /// The upload's `Survey-Consent` (the version of the kiosk's consent notice), when it sent one.
    public var consent: String?
    /// When the upload arrived, ISO 8601 UTC with milliseconds: what a test compares with the
    /// time the daemon announced for it.
    public var receivedAt: String?
}

/// The mock survey server, a `Service`: run it in a `ServiceGroup` (graceful shutdown stops it
/// cleanly, releasing requests held by the hang fault), or in process with `InProcessMockServer`.
/// `port()` waits for the bound port.
public final class MockSurveyServer: Service, Sendable {
    public let configuration: MockServerConfiguration
    let logger: Logger
    let routing: Routing
    let state: Mutex<ServerState>
    let recorder: Recorder?

    struct StoredReply: Sendable { var body: Data; var status: Int; var payload: Data }
    struct ServerState {
        var faults: FaultState
        var replies: [String: StoredReply] = [:]
        var port: Int?
        var stopping = false
        var accepted = 0
        /// The required answer names of each questionnaire file, with the bytes they were read
        /// from: a fixture that changes on disk is decoded again.
        var requiredNames: [String: (definition: Data, names: [String])] = [:]
    }

    /// Reads `routing.json` now, so that a wrong fixtures folder fails at start.
    public init(configuration: MockServerConfiguration, logger: Logger) throws(MockServerError) {
        if let problem = configuration.faults.problem { throw MockServerError(code: "bad_faults", message: "Bad faults: \(problem).") }
        self.configuration = configuration
        self.logger = logger
        let routingFile = configuration.fixtures.appendingPathComponent("routing.json")
        do {
            routing = try JSONDecoder().decode(Routing.self, from: Data(contentsOf: routingFile))
        } catch {
            throw MockServerError(code: "bad_fixtures", message: "Cannot read \(routingFile.path): \(error). Pass the project's mock/ folder with --fixtures.")
        }
        state = Mutex(ServerState(faults: FaultState(faults: configuration.faults)))
        recorder = configuration.recordFile.map(Recorder.init)
    }

    /// Serves until graceful shutdown (or cancellation) of the surrounding service group.
    public func run() async throws {
        let app = Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "mock-survey-server"),
            onServerRunning: { [self] channel in
                self.state.withLock { $0.port = channel.localAddress?.port }
            },
            logger: logger
        )
        defer { state.withLock { $0.stopping = true } }
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await app.run()
            } onGracefulShutdown: {
                self.state.withLock { $0.stopping = true }
            }
        } onCancel: {
            self.state.withLock { $0.stopping = true }
        }
    }

    /// The bound port, once the server listens (polls briefly; nil if `run()` ended first).
    public func port() async -> Int? {
        while true {
            let (port, stopping) = state.withLock { ($0.port, $0.stopping) }
            if let port { return port }
            if stopping || Task.isCancelled { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Replaces the faults (the admin endpoint does the same).
    public func setFaults(_ faults: Faults) { state.withLock { $0.faults.set(faults) } }

    /// Accepted submissions so far (replays not counted).
    public var acceptedCount: Int { state.withLock { $0.accepted } }
}

/// Appends record lines off the event loop.
actor Recorder {
    let file: URL
    init(file: URL) { self.file = file }

    func append(_ line: Data) throws {
        if !FileManager.default.fileExists(atPath: file.path) {
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: line + Data("\n".utf8))
    }
}

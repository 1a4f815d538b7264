import ArgumentParser
import Foundation
import Logging
import MockServer
import ServiceLifecycle
import UnixSignals

/// `mock-survey-server`: serves the project's mock/ fixtures on loopback. See doc/mock-server.md.
@main
struct MockSurveyServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-survey-server",
        abstract: "A survey server for development, demos and tests, serving mock/ fixtures."
    )

    @Option(help: "The fixtures folder (questions/, routing.json).") var fixtures = "mock"
    @Option(help: "The address to bind.") var host = "127.0.0.1"
    @Option(help: "The port to bind; 0 lets the system choose.") var port = 0
    @Option(help: "Append every accepted submission to this file as one JSON line.") var record: String?
    @Option(help: "Milliseconds added before every answer.") var latencyMs = 0
    @Option(help: "Share (0...1) of requests answered 503 with Retry-After.") var unavailableShare = 0.0
    @Option(help: "Seconds sent in Retry-After.") var retryAfter = 1
    @Option(help: "Share of requests answered 429.") var tooManyRequestsShare = 0.0
    @Option(help: "Share of requests answered 500.") var serverErrorShare = 0.0
    @Option(help: "Share of requests answered with a malformed body.") var malformedShare = 0.0
    @Option(help: "Share of uploads answered isSuccess: false.") var rejectShare = 0.0
    @Option(help: "Share of requests accepted and never answered.") var hangShare = 0.0

    func run() async throws {
        var faults = Faults()
        faults.latencyMilliseconds = latencyMs
        faults.unavailableShare = unavailableShare
        faults.retryAfterSeconds = retryAfter
        faults.tooManyRequestsShare = tooManyRequestsShare
        faults.serverErrorShare = serverErrorShare
        faults.malformedShare = malformedShare
        faults.rejectShare = rejectShare
        faults.hangShare = hangShare
        if let problem = faults.problem { throw ValidationError(problem) }
        var logger = Logger(label: "mock-survey-server")
        logger.logLevel = .warning
        let server: MockSurveyServer
        do {
            server = try MockSurveyServer(
                configuration: MockServerConfiguration(fixtures: URL(fileURLWithPath: fixtures), host: host, port: port, recordFile: record.map { URL(fileURLWithPath: $0) }, faults: faults),
                logger: logger)
        } catch {
            throw ValidationError(error.message)
        }
        // SIGTERM and SIGINT shut the server down gracefully.
        let services = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            if let bound = await server.port() {
                // Unbuffered, so that a test reading the pipe sees the line at once.
                FileHandle.standardOutput.write(Data("listening on \(host):\(bound)\n".utf8))
            }
            _ = try await group.next()
        }
    }
}

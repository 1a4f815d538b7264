public import Logging
import ServiceLifecycle

/// A mock server running in this process until `stop()`: for tests, benchmarks and tools that
/// have no service group of their own. Stopping is a graceful shutdown, so open connections are
/// closed in order rather than cut by cancellation.
public final class InProcessMockServer: Sendable {
    public let server: MockSurveyServer
    /// The port the server listens on.
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(server: MockSurveyServer, port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.server = server
        self.port = port
        self.group = group
        self.task = task
    }

    /// Starts a server and returns once it listens; throws what stopped it if it could not start.
    public static func start(configuration: MockServerConfiguration, logger: Logger) async throws -> InProcessMockServer {
        let server = try MockSurveyServer(configuration: configuration, logger: logger)
        let group = ServiceGroup(services: [server], logger: logger)
        let task = Task { try await group.run() }
        guard let port = await server.port() else {
            try await task.value
            throw MockServerError(code: "not_started", message: "The mock server stopped before it listened on \(configuration.host):\(configuration.port).")
        }
        return InProcessMockServer(server: server, port: port, group: group, task: task)
    }

    /// Shuts the server down gracefully and waits until it has stopped.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import SurveyDaemon
import SurveyTesting

/// A whole daemon in process over a temporary directory, for the tests that need one.
enum InProcessDaemon {
    /// Its configuration: the state directory and the control socket in `dir`, the survey server
    /// at `serverURL` (by default port 9, where nothing answers), and whatever `adjust` sets.
    static func configuration(
        in dir: TemporaryDirectory, serverURL: String = "http://127.0.0.1:9", _ adjust: (inout DaemonConfiguration.Overrides) -> Void = { _ in }
    ) async throws -> DaemonConfiguration {
        var flags = DaemonConfiguration.Overrides()
        flags[\.serverURL] = serverURL
        flags[\.stateDirectory] = dir.appending("state").path
        flags[\.socketPath] = dir.appending("d.sock").path
        adjust(&flags)
        var configuration = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": dir.path], flags: flags, userID: getuid())
        // The test process runs hundreds of tests at once on two cores: a service can wait many
        // seconds for a thread, and a stop that outlasts the defaults would end the whole run.
        configuration.shutdownLimits = .init(graceful: .seconds(60), cancellation: .seconds(60))
        return configuration
    }

    /// Runs `daemon` (no signals handled) and returns once it is ready, with the task running it
    /// and the endpoints it serves; the endpoints are nil when it stopped before it was ready.
    static func start(_ daemon: Daemon) async -> (running: Task<Void, any Error>, endpoints: DaemonEndpoints?) {
        let (ready, readyContinuation) = AsyncStream<DaemonEndpoints>.makeStream()
        let running = Task {
            defer { readyContinuation.finish() }
            try await daemon.run(signals: []) { readyContinuation.yield($0) }
        }
        var iterator = ready.makeAsyncIterator()
        return (running, await iterator.next())
    }
}

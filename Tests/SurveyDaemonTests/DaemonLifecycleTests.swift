import AsyncHTTPClient
import Foundation
import Logging
import Storage
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// The whole daemon in process: it starts, stops when its task is cancelled, and on the way out
/// closes its journals and shuts its HTTP client down (asynchronously).
@Suite struct DaemonLifecycleTests {
    @Test func stoppingClosesTheJournalsAndTheHTTPClient() async throws {
        let dir = try TemporaryDirectory(prefix: "dl")
        defer { dir.remove() }
        var flags = DaemonConfiguration.Overrides()
        flags[\.serverURL] = "http://127.0.0.1:9"
        flags[\.stateDirectory] = dir.appending("state").path
        flags[\.socketPath] = dir.appending("d.sock").path
        let configuration = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": dir.path], flags: flags, userID: getuid())
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        let running = Task { try await daemon.run(signals: []) { readyContinuation.yield() } }
        var iterator = ready.makeAsyncIterator()
        _ = await iterator.next()
        running.cancel()
        _ = await running.result
        // Shut down already: a second shutdown is refused.
        await #expect(throws: HTTPClientError.alreadyShutdown) { try await daemon.httpClient.shutdown() }
        // The state directory's lock was released: another daemon opens it.
        let again = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
        await again.close()
    }

    /// A session journal the daemon cannot restore makes the start fail with that error, after
    /// shutting the HTTP client down (a debug build traps on releasing one still running).
    @Test func aFailedRestoreReleasesEverything() async throws {
        let dir = try TemporaryDirectory(prefix: "dr")
        defer { dir.remove() }
        try FileManager.default.createDirectory(at: dir.appending("state"), withIntermediateDirectories: true)
        let journal = try Journal(directory: dir.appending("state/sessions").path, logger: Logger(label: "t"))
        _ = try await journal.append(type: 1, payload: Array("not an event".utf8))
        journal.close()
        var flags = DaemonConfiguration.Overrides()
        flags[\.serverURL] = "http://127.0.0.1:9"
        flags[\.stateDirectory] = dir.appending("state").path
        flags[\.socketPath] = dir.appending("d.sock").path
        let configuration = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": dir.path], flags: flags, userID: getuid())
        await #expect(throws: StorageError.self) { _ = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t")) }
        // The journals were closed: the state directory can be opened again.
        let reopened = try Journal(directory: dir.appending("state/sessions").path, logger: Logger(label: "t"))
        reopened.close()
    }
}

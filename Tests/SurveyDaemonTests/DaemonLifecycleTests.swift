import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Storage
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// The whole daemon in process: it starts, stops when its task is cancelled, and on the way out
/// closes its journals and shuts its HTTP client down (asynchronously).
@Suite(.timeLimit(.minutes(5))) struct DaemonLifecycleTests {
    @Test func stoppingClosesTheJournalsAndTheHTTPClient() async throws {
        let dir = try TemporaryDirectory(prefix: "dl")
        defer { dir.remove() }
        let configuration = try await InProcessDaemon.configuration(in: dir)
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
        let (running, endpoints) = await InProcessDaemon.start(daemon)
        #expect(endpoints != nil, "the daemon stopped before it was ready")
        // The wall clock's watcher starts its thread when its service runs, beside the readiness.
        #expect(await eventually { daemon.threadsRunning.count == 4 }, "the journals' writers, the queue's thread and the wall clock's watcher run: \(daemon.threadsRunning)")
        running.cancel()
        _ = await running.result
        // Every thread it started has ended (its stop checks this too; the control server's event
        // loop has ended once its shutdown completed).
        #expect(daemon.threadsRunning.isEmpty, "\(daemon.threadsRunning)")
        // Shut down already: a second shutdown is refused.
        await #expect(throws: HTTPClientError.alreadyShutdown) { try await daemon.httpClient.shutdown() }
        // The state directory's lock was released: another daemon opens it.
        let again = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
        await again.close()
    }

    /// With a token file, the daemon also watches the file's directory on a thread of its own
    /// (inotify): its stop waits for that thread too, and none of its threads is left running.
    @Test func stoppingEndsTheTokenFilesWatchingThread() async throws {
        let dir = try TemporaryDirectory(prefix: "dt")
        defer { dir.remove() }
        try "token".write(toFile: dir.appending("token").path, atomically: true, encoding: .utf8)
        let configuration = try await InProcessDaemon.configuration(in: dir) { flags in
            flags[\.tokenFile] = dir.appending("token").path
        }
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
        let (running, endpoints) = await InProcessDaemon.start(daemon)
        #expect(endpoints != nil, "the daemon stopped before it was ready")
        #expect(await eventually { daemon.threadsRunning.count == 5 }, "the journals' writers, the queue's thread, the wall clock's watcher and the token file's directory watch run: \(daemon.threadsRunning)")
        #expect(daemon.threadsRunning.contains { $0.hasSuffix("directory watch") }, "\(daemon.threadsRunning)")
        running.cancel()
        _ = await running.result
        #expect(daemon.threadsRunning.isEmpty, "\(daemon.threadsRunning)")
    }

    /// With `kioskListen`, the daemon serves the respondent's pages in its service group and is
    /// ready only once they listen, on the port the system chose for port 0.
    @Test func theKioskPagesAreServedWhenConfigured() async throws {
        let dir = try TemporaryDirectory(prefix: "dk")
        defer { dir.remove() }
        let configuration = try await InProcessDaemon.configuration(in: dir) { flags in
            flags[\.kioskListen] = "127.0.0.1:0"
            flags[\.kioskTitleEnglish] = "Drinks & you"
        }
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
        let (running, started) = await InProcessDaemon.start(daemon)
        defer { running.cancel() }
        let endpoints = try #require(started)
        let url = try #require(endpoints.kioskURL)
        #expect(url.hasPrefix("http://127.0.0.1:") && !url.hasPrefix("http://127.0.0.1:0/"))
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url + "?lang=en"), timeout: .seconds(10))
        #expect(response.status == .ok)
        #expect(response.headers["Set-Cookie"].first?.contains("HttpOnly") == true)
        let page = String(buffer: try await response.body.collect(upTo: 1 << 20))
        #expect(page.contains("Drinks &amp; you"))
        running.cancel()
        _ = await running.result
    }

    /// A kiosk address other machines reach is refused unless `kioskAccess` is `network`.
    @Test func aNetworkKioskAddressNeedsExplicitAccess() async throws {
        var flags = DaemonConfiguration.Overrides()
        flags[\.serverURL] = "http://127.0.0.1:9"
        flags[\.kioskListen] = "0.0.0.0:8080"
        do {
            _ = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/nonexistent"], flags: flags, userID: getuid())
            Issue.record("0.0.0.0 was accepted without kioskAccess network")
        } catch {
            #expect(error.description.contains("--kiosk-access network"), "\(error)")
            #expect(error.description.contains("0.0.0.0:8080"), "\(error)")
        }
        flags[\.kioskAccess] = .network
        let configuration = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/nonexistent"], flags: flags, userID: getuid())
        #expect(configuration.kioskListen == "0.0.0.0:8080")
        for loopback in ["127.0.0.1:0", "localhost:8080", "[::1]:80"] {
            flags[\.kioskListen] = loopback
            flags[\.kioskAccess] = nil
            _ = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/nonexistent"], flags: flags, userID: getuid())
        }
    }

    @Test func kioskAddressesAreReadStrictly() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8080") == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(try ListenAddress(parsing: "[::1]:0").description == "[::1]:0")
        #expect(try ListenAddress(parsing: "localhost:1").isLoopback)
        #expect(try ListenAddress(parsing: "127.5.0.1:1").isLoopback)
        #expect(try !ListenAddress(parsing: "[::]:1").isLoopback)
        #expect(try !ListenAddress(parsing: "192.168.1.20:80").isLoopback)
        for bad in ["", "8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:+80", "kiosk.local:80", "::1:80", "[::1:80", "[1.2.3.4]:80", "127.0.0.1:8080\u{0}"] {
            #expect(throws: ListenAddressError.self, "\(bad.debugDescription)") { _ = try ListenAddress(parsing: bad) }
        }
    }

    /// A session journal the daemon cannot restore makes the start fail with that error, after
    /// shutting the HTTP client down (a debug build traps on releasing one still running).
    @Test func aFailedRestoreReleasesEverything() async throws {
        let dir = try TemporaryDirectory(prefix: "dr")
        defer { dir.remove() }
        try FileManager.default.createDirectory(at: dir.appending("state"), withIntermediateDirectories: true)
        let journal = try Journal(directory: dir.appending("state/sessions").path, logger: Logger(label: "t"))
        _ = try await journal.append(type: 1, payload: Array("not an event".utf8))
        await journal.close()
        let configuration = try await InProcessDaemon.configuration(in: dir)
        await #expect(throws: StorageError.self) { _ = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t")) }
        // The journals were closed: the state directory can be opened again.
        let reopened = try Journal(directory: dir.appending("state/sessions").path, logger: Logger(label: "t"))
        await reopened.close()
    }

    /// A definition cache that cannot be opened (its path is a file) or a device id that cannot
    /// be made (its path is a directory) fails the start after both journals were opened: both
    /// are closed again, their locks released.
    @Test(arguments: ["definitions", "device-id"])
    func aFailedStartAfterTheJournalsClosesThem(blocked: String) async throws {
        let dir = try TemporaryDirectory(prefix: "df")
        defer { dir.remove() }
        let state = dir.appending("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        if blocked == "definitions" {
            try Data("not a directory".utf8).write(to: state.appending(path: blocked))
        } else {
            try FileManager.default.createDirectory(at: state.appending(path: blocked).appending(path: "x"), withIntermediateDirectories: true)
        }
        let configuration = try await InProcessDaemon.configuration(in: dir)
        #expect(configuration.stateDirectory == state.path)
        await #expect(throws: (any Error).self) { _ = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t")) }
        for journal in ["sessions", "queue"] {
            let reopened = try Journal(directory: state.appending(path: journal).path, logger: Logger(label: "t"))
            await reopened.close()
        }
    }
}

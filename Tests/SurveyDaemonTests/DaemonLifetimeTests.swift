import Foundation
import Logging
import Storage
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// The daemon's lifetime as its owner sees it: a closed daemon is released, one let go without
/// `close()` is caught in debug builds, and a run that fails closes what the daemon opened.
@Suite(.timeLimit(.minutes(5))) struct DaemonLifetimeTests {
    @Test func aClosedDaemonIsReleased() async throws {
        let dir = try TemporaryDirectory(prefix: "dlr")
        defer { dir.remove() }
        let configuration = try await InProcessDaemon.configuration(in: dir)
        weak var released: Daemon?
        do {
            let daemon = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
            released = daemon
            await daemon.close()
            await daemon.close()  // a second close does nothing
        }
        #expect(released == nil, "nothing the daemon made holds it once it is closed")
    }

    @Test(.enabled(if: _isDebugAssertConfiguration(), "the check is an assertion: only debug builds trap"))
    func aDaemonReleasedWithoutCloseTrapsInADebugBuild() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let dir = try TemporaryDirectory(prefix: "dlt")
            defer { dir.remove() }
            let configuration = try await InProcessDaemon.configuration(in: dir)
            _ = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        // The daemon's own check, before its HTTP client's or its journals' would fire.
        #expect(stderr.contains("The daemon for") && stderr.contains("was released without close()"), "\(stderr.suffix(2000))")
    }

    /// The kiosk's address is taken by another listener: the run fails, and on its way out the
    /// daemon closes its journals (their locks released) and every thread it started ends.
    @Test func aRunWhoseKioskCannotListenClosesWhatTheDaemonOpened() async throws {
        let dir = try TemporaryDirectory(prefix: "dlk")
        defer { dir.remove() }
        let taken = try TCPListener()
        defer { taken.stop() }
        let configuration = try await InProcessDaemon.configuration(in: dir) { flags in
            flags[\.kioskListen] = "127.0.0.1:\(taken.port)"
        }
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
        let (running, endpoints) = await InProcessDaemon.start(daemon)
        #expect(endpoints == nil, "the daemon became ready without its kiosk pages")
        await #expect(throws: (any Error).self) { try await running.value }
        #expect(daemon.threadsRunning.isEmpty, "\(daemon.threadsRunning)")
        for journal in ["sessions", "queue"] {
            let reopened = try Journal(directory: configuration.stateDirectory + "/" + journal, logger: Logger(label: "t"))
            await reopened.close()
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// The control socket's edge with the built surveyd: one daemon per socket however they are started.
@Suite(.serialized) struct ControlSocketEndToEndTests {
    /// Ten surveyd started at once on one socket, each with its own state directory: exactly one
    /// keeps running and answers; the others exit 1 saying why; stopping them leaves it answering.
    @Test func simultaneousStartsLeaveExactlyOneDaemon() async throws {
        let stack = try Stack()
        defer { stack.dir.remove() }
        try await stack.startMock()
        var daemons: [BackgroundProcess] = []
        for index in 0..<10 {
            daemons.append(try await stack.startDaemon(socket: stack.socket, state: stack.dir.path + "/state\(index)"))
        }
        // Wait until nine have exited (or the time is up).
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: .seconds(60))
        while daemons.filter(\.isRunning).count > 1 && clock.now < end {
            try await Task.sleep(for: .milliseconds(100))
        }
        let running = daemons.filter(\.isRunning)
        #expect(running.count == 1, "\(running.count) daemons kept running on one socket")
        let survivor = try #require(running.first)
        _ = try await survivor.waitForLine(containing: "surveyd ready", onStandardError: true)
        for loser in daemons where loser !== survivor {
            #expect(await loser.waitForExit(timeout: .seconds(30)) == 1)
            #expect(loser.errorOutput.contains("another surveyd is already serving \(stack.socket)"), "\(loser.errorOutput)")
        }
        let status = try await stack.ctl(["status"])
        #expect(status.status == 0, "\(status.stdout) \(status.stderr)")
        for loser in daemons where loser !== survivor { await loser.stop() }
        let after = try await stack.ctl(["status"])
        #expect(after.status == 0, "stopping the others left no daemon answering: \(after.stdout) \(after.stderr)")
        // It removes its socket when it stops; a new daemon then starts on it.
        #expect(await survivor.stop() == 0, "\(survivor.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: stack.socket))
        try await stack.startDaemon()
        #expect(try await stack.ctl(["status"]).status == 0)
        await stack.finish()
        for daemon in daemons { await daemon.stop(signal: SIGKILL) }
    }
}

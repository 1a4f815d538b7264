#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// The control socket's edge with the built surveyd: one daemon per socket however they are
/// started, and connections that never finish a request neither pile up nor lock clients out.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ControlSocketEndToEndTests {
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
        #expect(await eventually(timeout: .seconds(60), every: .milliseconds(100)) { daemons.filter(\.isRunning).count <= 1 })
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

    /// 1,000 connections that send half a request head: the daemon closes every one within its
    /// read timeout, its open descriptors come back to where they were, and a normal request
    /// meanwhile is answered while they are still open.
    @Test func connectionsWithPartialHeadersAreClosedAndDoNotLockClientsOut() async throws {
        let stack = try Stack()
        try await stack.startMock()
        // The variable rather than the flag, so that the same test runs against any surveyd. Long
        // enough that opening the 1,000 connections on a loaded machine ends well before it.
        try await stack.startDaemon(environment: ["SURVEYD_CONTROL_READ_TIMEOUT": "15"])
        let daemon = try #require(stack.daemon)
        #expect(try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/v1/status").status == 200)
        try await Task.sleep(for: .milliseconds(200))
        let baseline = try #require(OpenFiles.count(pid: daemon.pid))

        let held = try await HeldConnections.open(socket: stack.socket, count: 1000, sending: Data("GET /v1/status HTTP/1.1\r\nHost: surveyd\r\nX-Partial".utf8))
        defer { held.closeAll() }
        let normal = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/v1/status")
        #expect(normal.status == 200)
        let stillOpen = held.poll().filter { !$0 }.count
        #expect(stillOpen > 0, "the normal request was answered only once no partial connection was left")

        let closed = try await held.waitUntilClosed(atLeast: 1000, timeout: .seconds(60))
        #expect(closed == 1000, "\(1000 - closed) of 1000 partial connections still open")
        // Those still open at the read timeout were told why.
        let timedOut = (0..<held.count).filter { String(decoding: held.received(at: $0), as: UTF8.self).hasPrefix("HTTP/1.1 408") }.count
        #expect(timedOut > 0)
        var count = Int.max
        #expect(await eventually(every: .milliseconds(100)) {
            count = OpenFiles.count(pid: daemon.pid) ?? .max
            return count <= baseline
        }, "the daemon holds \(count) descriptors, \(baseline) before")
        #expect(try await stack.ctl(["status"]).status == 0)
        await stack.finish()
    }

    /// The flags set the limits; a value out of range stops surveyd with exit 78 naming it.
    @Test func theFlagsSetTheConnectionLimits() async throws {
        let stack = try Stack()
        try await stack.startMock()
        let refused = try await stack.startDaemon(socket: stack.dir.path + "/bad.sock", state: stack.dir.path + "/bad", ["--control-read-timeout", "0"])
        #expect(await refused.waitForExit(timeout: .seconds(30)) == 78)
        #expect(refused.errorOutput.contains("flag --control-read-timeout: must be above 0"), "\(refused.errorOutput)")
        try await stack.startDaemon(["--control-read-timeout", "0.5", "--control-idle-timeout", "0.5", "--max-control-connections", "4"])
        let held = try await HeldConnections.open(socket: stack.socket, count: 6, sending: Data("GET /v1/status HTTP/1.1\r\n".utf8))
        defer { held.closeAll() }
        #expect(try await held.waitUntilClosed(atLeast: 6, timeout: .seconds(30)) == 6)
        // Two went at once to keep four; four timed out with a 408.
        let timedOut = (0..<held.count).filter { String(decoding: held.received(at: $0), as: UTF8.self).hasPrefix("HTTP/1.1 408") }
        #expect(timedOut == [2, 3, 4, 5], "\(timedOut)")
        #expect(try await stack.ctl(["status"]).status == 0)
        await stack.finish()
    }
}

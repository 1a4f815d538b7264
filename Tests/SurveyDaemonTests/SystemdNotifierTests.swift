#if canImport(Glibc)
import Glibc
#endif
import ControlAPI
import Foundation
import Logging
import NIOCore
import Synchronization
import SurveyTesting
import NIOPosix
import Testing
@testable import SurveyDaemon

/// Records what the notify service sends.
final class RecordingNotifier: ServiceManagerNotifying {
    let messages = Mutex<[String]>([])
    func notify(_ message: String) throws(SystemdNotifyError) { messages.withLock { $0.append(message) } }
    var all: [String] { messages.withLock { $0 } }
}

@Suite(.timeLimit(.minutes(5))) struct SystemdNotifierTests {
    @Test func sendsADatagramToAPathSocket() async throws {
        let dir = try TemporaryDirectory(prefix: "sn")
        defer { dir.remove() }
        let listener = try DatagramListener(path: dir.appending("notify").path)
        defer { listener.stop() }
        let notifier = try #require(try SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.name]))
        try notifier.notify("READY=1\nSTATUS=online, 0 pending, 0 dead, 0 sessions")
        try notifier.notify("WATCHDOG=1")
        #expect(await eventually { listener.messages.count == 2 })
        #expect(listener.messages == ["READY=1\nSTATUS=online, 0 pending, 0 dead, 0 sessions", "WATCHDOG=1"])
    }

    @Test func sendsADatagramToAnAbstractSocket() async throws {
        let listener = try DatagramListener(abstract: "surveyd-test-\(UUID().uuidString)")
        defer { listener.stop() }
        let notifier = try SystemdNotifier(socketName: listener.name)
        try notifier.notify("WATCHDOG=1")
        #expect(await eventually { listener.messages == ["WATCHDOG=1"] })
    }

    @Test func withoutNotifySocketThereIsNoNotifier() throws {
        #expect(try SystemdNotifier(environment: [:]) == nil)
        #expect(try SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]) == nil)
    }

    @Test(arguments: ["relative/notify", "@", String(repeating: "/x", count: 60)])
    func aNotifySocketThatNamesNoSocketIsRefused(name: String) {
        #expect(throws: SystemdNotifyError.self) { try SystemdNotifier(socketName: name) }
        do {
            _ = try SystemdNotifier(socketName: name)
        } catch {
            #expect(error.code == "notify_socket_invalid")
            #expect(error.message.contains("notifications are not sent"))
        }
    }

    @Test func aSocketNobodyListensOnFailsToSend() throws {
        let notifier = try SystemdNotifier(socketName: "/nonexistent-dir/notify")
        #expect(throws: SystemdNotifyError.self) { try notifier.notify("READY=1") }
    }

    @Test func theWatchdogIntervalIsForThisProcessOnly() {
        #expect(SystemdWatchdog.interval(environment: ["WATCHDOG_USEC": "30000000"], pid: 42) == .seconds(30))
        #expect(SystemdWatchdog.interval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "42"], pid: 42) == .seconds(30))
        #expect(SystemdWatchdog.interval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "43"], pid: 42) == nil)
        #expect(SystemdWatchdog.interval(environment: ["WATCHDOG_USEC": "0"], pid: 42) == nil)
        #expect(SystemdWatchdog.interval(environment: ["WATCHDOG_USEC": "soon"], pid: 42) == nil)
        #expect(SystemdWatchdog.interval(environment: [:], pid: 42) == nil)
    }

    @Test func theStatusLineReadsAsASentence() {
        #expect(DaemonSystemdServices.statusLine(connectivity: "online", pending: 3, dead: 0, sessions: 2) == "online, 3 pending, 0 dead, 2 sessions")
        #expect(DaemonSystemdServices.statusLine(connectivity: "offline", pending: 0, dead: 1, sessions: 1) == "offline, 0 pending, 1 dead, 1 session")
        #expect(DaemonSystemdServices.statusLine(connectivity: "unknown", pending: nil, dead: nil, sessions: 0) == "unknown, queue unreadable, 0 sessions")
    }
}

/// The notify service on a manual clock: readiness, status changes at most once per interval,
/// watchdog pings only while healthy, and STOPPING at the end.
@Suite(.timeLimit(.minutes(5))) struct SystemdNotifyServiceTests {
    final class Box: Sendable {
        let status = Mutex("online, 0 pending, 0 dead, 0 sessions")
        let problem = Mutex<String?>(nil)
        let reads = Mutex(0)

        func read() -> String {
            reads.withLock { $0 += 1 }
            return status.withLock { $0 }
        }
    }

    @Test func readyThenStatusChangesThenStopping() async throws {
        let clock = ManualClock()
        let recorder = RecordingNotifier()
        let box = Box()
        let events = DaemonEvents()
        let service = SystemdNotifyService(
            notifier: recorder, watchdogInterval: nil, statusInterval: .seconds(1), clock: clock, events: events, logger: Logger(label: "t"),
            status: { box.read() }, health: { nil })
        let running = Task { try await service.run() }
        #expect(await eventually { events.subscriberCount == 1 })
        // Nothing before ready: no status line is sent to a service manager still waiting, and
        // no timer runs.
        events.publish(DaemonEvent(.sessionStarted))
        #expect(await eventually { clock.sleeping == 0 && recorder.all.isEmpty })
        await service.ready()
        #expect(recorder.all == ["READY=1\nSTATUS=online, 0 pending, 0 dead, 0 sessions"])
        // The loop reads the line once more, unchanged: nothing sent, and no timer.
        #expect(await eventually { box.reads.withLock { $0 } == 2 })
        #expect(clock.sleeping == 0)
        // Something happens twice within one interval: one line, one interval after the last
        // read, the latest.
        box.status.withLock { $0 = "offline, 1 pending, 0 dead, 1 session" }
        events.publish(DaemonEvent(.sessionStarted))
        box.status.withLock { $0 = "offline, 2 pending, 0 dead, 1 session" }
        service.statusMayHaveChanged()
        try await clock.waitForSleepers(1)
        #expect(clock.deadlines == [.seconds(1)], "at most one line per interval")
        #expect(recorder.all.count == 1)
        clock.advance(by: .seconds(1))
        #expect(await eventually { recorder.all.last == "STATUS=offline, 2 pending, 0 dead, 1 session" })
        #expect(await eventually { clock.sleeping == 0 }, "nothing more to send: no timer")
        #expect(recorder.all.count == 2)
        running.cancel()
        _ = await running.result
        #expect(recorder.all.last == "STOPPING=1\nSTATUS=stopping")
        #expect(!recorder.all.contains("WATCHDOG=1"), "no watchdog was asked for")
    }

    @Test func watchdogPingsOnlyWhileHealthy() async throws {
        let clock = ManualClock()
        let recorder = RecordingNotifier()
        let box = Box()
        let service = SystemdNotifyService(
            notifier: recorder, watchdogInterval: .seconds(4), statusInterval: .seconds(1), clock: clock, logger: Logger(label: "t"),
            status: { "online, 0 pending, 0 dead, 0 sessions" }, health: { box.problem.withLock { $0 } })
        let running = Task { try await service.run() }
        #expect(await eventually { clock.sleeping == 0 }, "not ready: no timer")
        await service.ready()
        func pings() -> Int { recorder.all.filter { $0 == "WATCHDOG=1" }.count }
        #expect(await eventually { pings() == 1 }, "the first ping as soon as ready")
        // Every half interval (2 s), and the only timer is the next ping's.
        try await clock.waitForSleepers(1)
        #expect(clock.deadlines == [.seconds(2)])
        clock.advance(by: .seconds(2))
        #expect(await eventually { pings() == 2 })
        try await clock.waitForSleepers(1)
        #expect(clock.deadlines == [.seconds(4)])
        // The worker stopped: no more pings, however long; the health is looked at every second.
        box.problem.withLock { $0 = "the delivery worker has stopped" }
        clock.advance(by: .seconds(2))
        try await clock.waitForSleepers(1)
        #expect(clock.deadlines == [.seconds(5)])
        for _ in 0..<4 {
            clock.advance(by: .seconds(1))
            try await clock.waitForSleepers(1)
        }
        #expect(pings() == 2)
        // Healthy again: pings again at the next look.
        box.problem.withLock { $0 = nil }
        clock.advance(by: .seconds(1))
        #expect(await eventually { pings() == 3 })
        running.cancel()
        _ = await running.result
    }

    /// The health the watchdog depends on: a service that is not running is named.
    @Test func healthNamesAStoppedService() async throws {
        let liveness = ServiceLiveness()
        let worker = DeliveryWorker(
            queue: MemoryDeliveryQueue(), uploader: ScriptedUploader(),
            settings: .init(maxInFlight: 1, backoff: { _, _ in .seconds(1) }, offlinePause: .seconds(1)),
            logger: Logger(label: "t")) { _, _ in }
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = loops.next()
        #expect(await DaemonSystemdServices.problem(liveness: liveness, worker: worker, controlLoop: loop) == "the delivery worker has stopped")
        try await liveness.run(DaemonSystemdServices.deliveryName) {
            #expect(await DaemonSystemdServices.problem(liveness: liveness, worker: worker, controlLoop: loop) == "the control server has stopped")
            try await liveness.run(DaemonSystemdServices.controlName) {
                #expect(await DaemonSystemdServices.problem(liveness: liveness, worker: worker, controlLoop: loop) == nil)
            }
        }
        #expect(!liveness.isRunning(DaemonSystemdServices.deliveryName))
        try await loops.shutdownGracefully()
    }
}

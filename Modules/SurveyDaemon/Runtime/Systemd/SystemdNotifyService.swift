import Logging
import ServiceLifecycle
import Synchronization

/// The daemon's side of systemd's `Type=notify` protocol, a `Service` of its `ServiceGroup`:
///
/// - ``ready()`` sends `READY=1` (with the first `STATUS=`) once the control socket listens;
///   the journals were opened before anything ran;
/// - when something happens (an event of `events`, or ``statusMayHaveChanged()``) it reads the
///   status line (`online, 3 pending, 0 dead, 2 sessions`) and sends `STATUS=` when it changed, at
///   most once per `statusInterval` of the injected clock; with nothing happening it sets no timer
///   for the status;
/// - with a watchdog, once ready, it sends `WATCHDOG=1` every half interval while `health` finds
///   nothing wrong, and reads the status line then too. While something is wrong it names it,
///   sends no ping (systemd then restarts the daemon) and looks again every `statusInterval`. A
///   health check that hangs sends no ping either;
/// - when the graceful shutdown reaches it (it is the last service, so it is told first) or it
///   is cancelled, it sends `STOPPING=1`.
final class SystemdNotifyService: Service, Sendable {
    let notifier: any ServiceManagerNotifying
    let watchdogInterval: Duration?
    let statusInterval: Duration
    let clock: any Clock<Duration>
    let status: @Sendable () async -> String
    /// What is wrong with the daemon (e.g. `the delivery worker has stopped`), or nil when nothing is.
    let health: @Sendable () async -> String?
    /// What makes the status line worth reading again; nil: only ``statusMayHaveChanged()``.
    let events: DaemonEvents?
    let logger: Logger
    /// Ends the loop's wait: the daemon became ready, or something happened.
    private let wakeup = DeliveryWakeup()

    private struct State {
        var ready = false
        var lastStatus: String?
        var lastProblem: String?
        var sendFailed = false
    }

    private let state = Mutex(State())

    init(
        notifier: any ServiceManagerNotifying, watchdogInterval: Duration?, statusInterval: Duration = .seconds(1),
        clock: any Clock<Duration> = ContinuousClock(), events: DaemonEvents? = nil, logger: Logger,
        status: @escaping @Sendable () async -> String, health: @escaping @Sendable () async -> String?
    ) {
        self.notifier = notifier
        self.watchdogInterval = watchdogInterval
        self.statusInterval = statusInterval
        self.clock = clock
        self.status = status
        self.health = health
        self.events = events
        self.logger = logger
    }

    /// Tells systemd the daemon is ready, with its first status line.
    func ready() async {
        let line = await status()
        state.withLock {
            $0.ready = true
            $0.lastStatus = line
        }
        send("READY=1\nSTATUS=\(line)")
        wakeup.wake()
    }

    /// Something the status line shows may have changed: it is read again (at most once per
    /// `statusInterval`).
    func statusMayHaveChanged() {
        wakeup.wake()
    }

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            if let stream = events?.subscribe() {
                group.addTask { [wakeup] in await wakeup.follow(stream) }
            }
            await notifyUntilStopped()
            group.cancelAll()
        }
        send("STOPPING=1\nSTATUS=stopping")
    }

    /// The loop: waits for the next ping, the next status line allowed, or something to happen.
    private func notifyUntilStopped() async {
        let timeline = Timeline(clock)
        var schedule = NotifySchedule(statusInterval: statusInterval, watchdogInterval: watchdogInterval)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let now = timeline.elapsed()
            let end = await wakeup.sleep(schedule.wait(at: now, ready: state.withLock { $0.ready }), on: timeline)
            if end == .stopping { break }
            if end == .woken { schedule.statusStale = true }
            guard state.withLock({ $0.ready }) else { continue }
            let current = timeline.elapsed()
            if schedule.statusDue(at: current) {
                await updateStatus()
                schedule.statusSent(at: current)
            }
            if schedule.pingDue(at: current) {
                await updateStatus()
                schedule.pinged(at: current, healthy: await ping())
            }
        }
    }

    /// Sends the status line when it changed since the last one sent (only once ready).
    func updateStatus() async {
        guard state.withLock({ $0.ready }) else { return }
        let line = await status()
        let changed = state.withLock { state in
            defer { state.lastStatus = line }
            return state.lastStatus != line
        }
        if changed { send("STATUS=\(line)") }
    }

    /// Sends `WATCHDOG=1` when the daemon is healthy; logs a problem when it appears or changes.
    /// - Returns: whether the ping was sent.
    func ping() async -> Bool {
        let problem = await health()
        let news = state.withLock { state in
            defer { state.lastProblem = problem }
            return state.lastProblem != problem
        }
        if let problem {
            if news { logger.error("the systemd watchdog is not being fed: \(problem); systemd restarts surveyd when its WatchdogSec= passes") }
            return false
        }
        if news { logger.notice("the systemd watchdog is fed again") }
        send("WATCHDOG=1")
        return true
    }

    /// Sends a notification; the first failure is logged as a warning, later ones at debug level.
    func send(_ message: String) {
        do {
            try notifier.notify(message)
        } catch {
            let first = state.withLock { state in
                defer { state.sendFailed = true }
                return !state.sendFailed
            }
            if first {
                logger.warning("cannot notify systemd; the daemon goes on without it", metadata: ["error": "\(error.message)"])
            } else {
                logger.debug("cannot notify systemd", metadata: ["error": "\(error.message)"])
            }
        }
    }
}

import Logging
import ServiceLifecycle
import Synchronization

/// The daemon's side of systemd's `Type=notify` protocol, a `Service` of its `ServiceGroup`:
///
/// - ``ready()`` sends `READY=1` (with the first `STATUS=`) once the control socket listens;
///   the journals were opened before anything ran;
/// - every `statusInterval` of the injected clock it reads the status line (`online, 3 pending,
///   0 dead, 2 sessions`) and sends `STATUS=` when it changed, so at most once per interval;
/// - with a watchdog, once ready, it sends `WATCHDOG=1` every half interval while `health` finds nothing
///   wrong (it names what is wrong otherwise, and no ping is sent: systemd then restarts the
///   daemon). A health check that hangs sends no ping either;
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
    let logger: Logger

    private struct State {
        var ready = false
        var lastStatus: String?
        var lastProblem: String?
        var sendFailed = false
    }

    private let state = Mutex(State())

    init(
        notifier: any ServiceManagerNotifying, watchdogInterval: Duration?, statusInterval: Duration = .seconds(1),
        clock: any Clock<Duration> = ContinuousClock(), logger: Logger,
        status: @escaping @Sendable () async -> String, health: @escaping @Sendable () async -> String?
    ) {
        self.notifier = notifier
        self.watchdogInterval = watchdogInterval
        self.statusInterval = statusInterval
        self.clock = clock
        self.status = status
        self.health = health
        self.logger = logger
    }

    /// How often the loop wakes: the status interval, or half the watchdog's when that is shorter.
    var tick: Duration {
        guard let watchdogInterval else { return statusInterval }
        return min(statusInterval, watchdogInterval / 2)
    }

    /// Tells systemd the daemon is ready, with its first status line.
    func ready() async {
        let line = await status()
        state.withLock {
            $0.ready = true
            $0.lastStatus = line
        }
        send("READY=1\nSTATUS=\(line)")
    }

    func run() async throws {
        let timeline = Timeline(clock)
        var lastPing: Duration?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { [timeline, tick] in try await timeline.sleep(tick) }
            } catch {
                break
            }
            if Task.isShuttingDownGracefully || Task.isCancelled { break }
            await updateStatus()
            if let watchdogInterval, state.withLock({ $0.ready }) {
                let now = timeline.elapsed()
                if lastPing.map({ now - $0 >= watchdogInterval / 2 }) ?? true, await ping() { lastPing = now }
            }
        }
        send("STOPPING=1\nSTATUS=stopping")
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

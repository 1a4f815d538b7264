#if canImport(Glibc)
import Glibc
#endif
#if canImport(CDispatch)
import CDispatch  // glibc's `stat` and `timespec` members: on Linux the compiler finds them through it
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import Logging
import NIOCore
import NIOPosix
import Networking
import ServiceLifecycle
import Storage
import UnixSignals

/// What the service manager gave the daemon: where to send notifications (`$NOTIFY_SOCKET`) and
/// the watchdog's interval (`$WATCHDOG_USEC`). Empty when surveyd runs without systemd.
public struct SystemdContext: Sendable {
    public var notifier: (any ServiceManagerNotifying)?
    public var watchdogInterval: Duration?

    public init(notifier: (any ServiceManagerNotifying)? = nil, watchdogInterval: Duration? = nil) {
        self.notifier = notifier
        self.watchdogInterval = watchdogInterval
    }

    /// The context the environment describes; a `$NOTIFY_SOCKET` that names no socket is logged
    /// and left out.
    public static func from(environment: [String: String], logger: Logger) -> SystemdContext {
        var context = SystemdContext()
        do {
            context.notifier = try SystemdNotifier(environment: environment)
        } catch {
            logger.warning("\(error.message)")
        }
        if context.notifier != nil {
            context.watchdogInterval = SystemdWatchdog.interval(environment: environment)
        }
        return context
    }
}

/// The daemon's services for systemd: the notifier (readiness, status, watchdog, stopping), the
/// reload on SIGHUP, and the liveness of the delivery worker and the control server that the
/// watchdog pings depend on.
struct DaemonSystemdServices {
    let liveness = ServiceLiveness()
    let notify: SystemdNotifyService?
    let reload: ReloadSignalService?

    static let deliveryName = "delivery worker"
    static let controlName = "control server"

    init(daemon: Daemon, systemd: SystemdContext, reload: (@Sendable () async -> Void)?, logger: Logger) async {
        let liveness = liveness
        if let notifier = systemd.notifier {
            let worker = daemon.worker
            let queue = daemon.queue
            let monitor = daemon.monitor
            let sessions = daemon.sessions
            let controlLoop = daemon.controlLoops.next()
            notify = SystemdNotifyService(
                notifier: notifier, watchdogInterval: systemd.watchdogInterval, clock: daemon.clock, events: daemon.exporter.metrics.events, logger: logger,
                status: {
                    let link = await monitor.status.state.rawValue
                    let open = await sessions.openSessions().count
                    let counts = try? await queue.counts()
                    return Self.statusLine(connectivity: link, pending: counts?.pending, dead: counts?.dead, sessions: open)
                },
                health: {
                    await Self.problem(liveness: liveness, worker: worker, controlLoop: controlLoop)
                })
        } else {
            notify = nil
        }
        if let reload {
            let notify = notify
            self.reload = await ReloadSignalService { [notify] in
                notify?.send("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
                await reload()
                if let notify { await notify.ready() }
            }
        } else {
            self.reload = nil
        }
    }

    /// The services to run after the daemon's own (so that they are told of a shutdown first).
    var services: [ServiceGroupConfiguration.ServiceConfiguration] {
        [reload.map { .init(service: $0) }, notify.map { .init(service: $0) }].compactMap { $0 }
    }

    /// `service`, counted as running in the liveness while it runs.
    func track(_ name: String, _ service: some Service) -> TrackedService {
        TrackedService(name: name, service: service, liveness: liveness)
    }

    /// Called once the control socket accepts connections.
    func ready() async {
        await notify?.ready()
    }

    /// `online, 3 pending, 0 dead, 2 sessions`, as `systemctl status` shows it.
    static func statusLine(connectivity: String, pending: Int?, dead: Int?, sessions: Int) -> String {
        let queue = if let pending, let dead { "\(pending) pending, \(dead) dead" } else { "queue unreadable" }
        return "\(connectivity), \(queue), \(sessions) session\(sessions == 1 ? "" : "s")"
    }

    /// What stops the daemon from doing its work, or nil: the delivery worker or the control
    /// server has stopped, or the control server's event loop does not run tasks. The worker's
    /// actor must answer, and the loop must run a task, for the check to return at all.
    static func problem(liveness: ServiceLiveness, worker: DeliveryWorker, controlLoop: any EventLoop) async -> String? {
        for name in [deliveryName, controlName] where !liveness.isRunning(name) {
            return "the \(name) has stopped"
        }
        _ = await worker.snapshot
        do {
            try await controlLoop.submit {}.get()
        } catch {
            return "the control server's event loop does not run tasks (\(error))"
        }
        return nil
    }

    static func monotonicMicroseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1000
    }
}

/// Calls `reload` on every SIGHUP until the graceful shutdown. The signal is trapped when the
/// service is made (before the daemon is ready), so that a SIGHUP is never lost to its default
/// action, which ends the process.
struct ReloadSignalService: Service {
    let signals: UnixSignalsSequence
    let reload: @Sendable () async -> Void

    init(reload: @escaping @Sendable () async -> Void) async {
        signals = await UnixSignalsSequence(trapping: .sighup)
        self.reload = reload
    }

    func run() async throws {
        for await _ in signals.cancelOnGracefulShutdown() {
            await reload()
        }
    }
}

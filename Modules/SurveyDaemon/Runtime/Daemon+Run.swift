// The daemon's run: every service in one `ServiceGroup`, in the order they shut down, and the
// journals closed once the group ends.

import ServiceLifecycle
import Synchronization
public import UnixSignals

extension Daemon {
    /// Runs every service until a graceful shutdown (one of `signals`, or the group ending), then
    /// closes the journals. `onReady` is called once the control socket accepts connections and
    /// the kiosk pages (when configured) listen.
    /// - Parameters:
    ///   - systemd: where readiness, status and watchdog pings go (`Daemon+Systemd.swift`).
    ///   - reload: called on every SIGHUP; nil leaves SIGHUP alone.
    public func run(
        signals: [UnixSignal] = [.sigterm, .sigint], systemd: SystemdContext = SystemdContext(),
        onReady: @escaping @Sendable (DaemonEndpoints) async -> Void = { _ in }, reload: (@Sendable () async -> Void)? = nil
    ) async throws {
        let server = control
        let extras = await DaemonSystemdServices(daemon: self, systemd: systemd, reload: reload, logger: logger)
        // READY=1 once both servers listen.
        let readiness = Readiness(socketPath: configuration.socketPath, needsKiosk: kiosk != nil) { endpoints in
            await onReady(endpoints)
            await extras.ready()
        }
        var kioskServices: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let kiosk {
            do {
                kioskServices.append(.init(service: try kiosk.service { url in await readiness.kiosk(url) }))
            } catch {
                // Nothing will run: close what the daemon opened, as a failed run does.
                await close()
                throw error
            }
        }
        let events = exporter.metrics.events
        let housekeeping = Housekeeping(sessions: sessions, queue: queue.queue, cache: cache, clock: clock, events: events, wakeup: housekeepingWakeup, logger: logger)
        let watcher = ConnectivityWatcher(monitor: monitor, worker: worker, queue: queue.queue, schedule: configuration.probeSchedule, clock: clock)
        let lifecycle = lifecycle
        var extra: [ServiceGroupConfiguration.ServiceConfiguration] = kioskServices
        if let today = backend.staffDesk?.today { extra.append(.init(service: today)) }
        if let tokenFile = configuration.tokenFile {
            extra.append(.init(service: TokenFileWatcher(path: tokenFile, worker: worker, client: surveyClient, clock: clock, watch: { [directoryWatches] in directoryWatches.start(directory: $0, changed: $1) }, logger: logger)))
        }
        if let address = configuration.metricsAddress {
            extra.append(.init(service: MetricsListener(address: address, backend: backend, logger: logger) { [self] port in
                self.metricsPortValue.withLock { $0 = port }
            }))
        }
        // Services shut down in reverse order: after the systemd services (the notifier says
        // STOPPING=1 at once), the daemon becomes not ready, then the control server stops accepting, the
        // questionnaire fetches still in flight are stopped last.
        var groupConfiguration = ServiceGroupConfiguration(
            services: [
                .init(service: DefinitionFetchesService(source: definitions)),
                .init(service: extras.track(DaemonSystemdServices.deliveryName, worker)),
                .init(service: housekeeping),
                .init(service: ErasureService(erasure: erasure, clock: clock, events: events)),
                .init(service: wallClockWatcher),
                .init(service: watcher),
            ] + extra + [
                .init(service: extras.track(DaemonSystemdServices.controlName, server.service(claim: socketClaim) {
                    lifecycle.serving()
                    await readiness.control()
                })),
                // Shut down first among the daemon's own: from then on the daemon is not ready.
                .init(service: ShutdownNotice(lifecycle: lifecycle, events: exporter.metrics.events)),
            ] + extras.services,
            gracefulShutdownSignals: signals,
            logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownLimits.graceful
        groupConfiguration.maximumCancellationDuration = configuration.shutdownLimits.cancellation
        let group = ServiceGroup(configuration: groupConfiguration)
        do {
            try await group.run()
        } catch {
            await close()
            throw error
        }
        await close()
    }
}

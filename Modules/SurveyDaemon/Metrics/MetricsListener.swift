import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `GET /metrics` and `GET /v1/health` on a loopback TCP address (`metricsListen`), for a
/// Prometheus server or a health check that cannot reach the control socket. Nothing else of the
/// control API is served there; any local user can read it, so the address must be loopback
/// (`DaemonSetting.checkMetricsListen`).
struct MetricsListener: Service {
    let address: ListenAddress
    let backend: any ControlHealthBackend
    let logger: Logger
    /// Told the bound port once it listens (the configured one, or the one the system chose for 0).
    var onListening: @Sendable (Int) async -> Void = { _ in }

    func run() async throws {
        let router = Router()
        ControlServer.addHealthRoutes(to: router, backend: backend)
        let logger = logger
        let onListening = onListening
        let app = TimerFreeApplication(
            router: router,
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "surveyd"),
            logger: logger
        ) { channel in
            let port = channel.localAddress?.port ?? address.port
            var bound = address
            bound.port = port
            logger.info("serving metrics", metadata: ["address": "\(bound)"])
            await onListening(port)
        }
        do {
            try await app.run()
        } catch {
            throw DaemonStartError("cannot serve metrics on \(address) (\(error)); free that port or give another --metrics-listen")
        }
    }
}

import ControlAPI
import Hummingbird
import NIOCore

/// `GET /metrics` and `GET /v1/health`, served on the control socket and, with
/// `metricsListen`, on a loopback TCP address (``MetricsListener``).
extension ControlServer {
    static func addHealthRoutes<Context: RequestContext>(to router: Router<Context>, backend: any ControlHealthBackend) {
        router.get("metrics") { _, _ in metricsResponse(try await backend.metrics()) }
        router.get("v1/health") { _, _ in try healthResponse(await backend.health()) }
    }

    func addHealthRoutes(to router: Router<ControlRequestContext>, backend: any ControlHealthBackend) {
        Self.addHealthRoutes(to: router, backend: backend)
    }

    /// The metrics in the Prometheus text format.
    static func metricsResponse(_ bytes: [UInt8]) -> Response {
        Response(status: .ok, headers: [.contentType: MetricsExporter.contentType], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `200` when ready, `503` otherwise, with the same body.
    static func healthResponse(_ health: HealthView) throws -> Response {
        try json(health, status: health.ready ? .ok : .serviceUnavailable)
    }
}

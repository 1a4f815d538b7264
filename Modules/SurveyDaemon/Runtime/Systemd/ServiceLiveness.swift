import ServiceLifecycle
import Synchronization

/// Which of the daemon's services are running, for the systemd watchdog: a service wrapped in
/// ``TrackedService`` counts as running from the start of its `run()` until it returns or throws.
final class ServiceLiveness: Sendable {
    private let running = Mutex<Set<String>>([])

    func isRunning(_ name: String) -> Bool { running.withLock { $0.contains(name) } }

    /// Runs `body` with `name` counted as running.
    func run(_ name: String, _ body: () async throws -> Void) async throws {
        running.withLock { _ = $0.insert(name) }
        defer { running.withLock { _ = $0.remove(name) } }
        try await body()
    }
}

/// A service whose run is recorded in a ``ServiceLiveness``.
struct TrackedService: Service {
    let name: String
    let service: any Service
    let liveness: ServiceLiveness

    func run() async throws {
        try await liveness.run(name) { try await service.run() }
    }
}

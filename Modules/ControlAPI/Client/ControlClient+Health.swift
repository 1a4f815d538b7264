#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ControlClient {
    /// `GET /v1/health`: the daemon's readiness. A `503` carries the health too (not ready, with
    /// its reasons) and is returned, not thrown.
    public func health() async throws(ControlClientError) -> HealthView {
        let (status, data) = try await exchange("GET", "/v1/health", bodyData: nil)
        guard status == 200 || status == 503, let health = try? JSONDecoder().decode(HealthView.self, from: data) else {
            if (200..<300).contains(status) { return try Self.decode(HealthView.self, data) }
            throw Self.failure(status: status, data)
        }
        return health
    }
}

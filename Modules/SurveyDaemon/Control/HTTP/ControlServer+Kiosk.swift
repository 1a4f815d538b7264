import ControlAPI
import Hummingbird

/// `/v1/kiosk/out-of-service`, `/v1/kiosk/in-service` and `/v1/kiosk/staff-pin/unlock`.
extension ControlServer {
    func addKioskRoutes(to v1: RouterGroup<ControlRequestContext>, backend: any ControlKioskBackend, limit: Int) {
        v1.post("kiosk/out-of-service") { request, _ in
            let body = try await Self.decode(OutOfServiceRequest.self, request, limit: limit, empty: OutOfServiceRequest())
            return try Self.json(await backend.setOutOfService(body))
        }
        v1.post("kiosk/in-service") { _, _ in try Self.json(await backend.setInService()) }
        v1.post("kiosk/staff-pin/unlock") { _, _ in try Self.json(await backend.unlockStaffPin()) }
    }
}

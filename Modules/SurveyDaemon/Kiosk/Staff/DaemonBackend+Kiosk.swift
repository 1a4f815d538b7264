public import ControlAPI
import Kiosk

/// The control API's kiosk endpoints over the staff desk, acting as the operator.
extension DaemonBackend {
    func desk() throws -> KioskStaffDesk {
        guard let staffDesk else { throw ControlError.noKiosk }
        return staffDesk
    }

    public func setOutOfService(_ request: OutOfServiceRequest) async throws -> KioskStatusView {
        let desk = try desk()
        do {
            try await desk.setOutOfService(message: request.message, by: .operator)
        } catch {
            throw ControlError.badRequest("bad_message", error.message)
        }
        return desk.view
    }

    public func setInService() async throws -> KioskStatusView {
        let desk = try desk()
        await desk.setInService(by: .operator)
        return desk.view
    }

    public func unlockStaffPin() async throws -> KioskStatusView {
        let desk = try desk()
        await desk.unlock(by: .operator)
        return desk.view
    }
}

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
            throw Self.controlError(error, refused: "bad_message")
        }
        return desk.view
    }

    public func setInService() async throws -> KioskStatusView {
        let desk = try desk()
        do {
            try await desk.setInService(by: .operator)
        } catch {
            throw Self.controlError(error, refused: "bad_message")
        }
        return desk.view
    }

    /// A staff desk's refusal as the control API answers it: `503 kiosk_state_not_kept` when the
    /// state could not be written, else `400` with `refused`.
    static func controlError(_ error: KioskStaffError, refused: String) -> ControlError {
        switch error.code {
        case .notKept: .unavailable("kiosk_state_not_kept", error.message)
        case .refused: .badRequest(refused, error.message)
        }
    }

    public func unlockStaffPin() async throws -> KioskStatusView {
        let desk = try desk()
        await desk.unlock(by: .operator)
        return desk.view
    }
}

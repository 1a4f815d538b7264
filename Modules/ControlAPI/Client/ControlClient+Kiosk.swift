extension ControlClient {
    /// `POST /v1/kiosk/out-of-service`: no kiosk session starts until `setInService()`.
    public func setOutOfService(_ request: OutOfServiceRequest = OutOfServiceRequest()) async throws(ControlClientError) -> KioskStatusView {
        try await send("POST", "/v1/kiosk/out-of-service", body: request)
    }

    /// `POST /v1/kiosk/in-service`.
    public func setInService() async throws(ControlClientError) -> KioskStatusView { try await send("POST", "/v1/kiosk/in-service") }

    /// `POST /v1/kiosk/staff-pin/unlock`: ends a lockout after wrong PINs on the staff screen.
    public func unlockStaffPin() async throws(ControlClientError) -> KioskStatusView { try await send("POST", "/v1/kiosk/staff-pin/unlock") }
}

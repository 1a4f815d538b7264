public import ControlAPI

/// The kiosk's staff endpoints (`/v1/kiosk/…`): out of service, back in service, and the end of
/// a staff PIN lockout. A daemon without kiosk pages answers 404.
public protocol ControlKioskBackend: Sendable {
    func setOutOfService(_ request: OutOfServiceRequest) async throws -> KioskStatusView
    func setInService() async throws -> KioskStatusView
    func unlockStaffPin() async throws -> KioskStatusView
}

extension ControlKioskBackend {
    public func setOutOfService(_ request: OutOfServiceRequest) async throws -> KioskStatusView { throw ControlError.noKiosk }
    public func setInService() async throws -> KioskStatusView { throw ControlError.noKiosk }
    public func unlockStaffPin() async throws -> KioskStatusView { throw ControlError.noKiosk }
}

extension ControlError {
    /// A kiosk endpoint of a daemon without kiosk pages: 404.
    public static var noKiosk: ControlError {
        ControlError.notFound("no_kiosk", "this daemon serves no kiosk pages (kioskListen is not set); see doc/kiosk.md")
    }
}

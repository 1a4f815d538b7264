public import Entities

/// The kiosk as its staff and operator set it: `GET /v1/status`'s `kiosk`, and the reply of
/// `POST /v1/kiosk/out-of-service`, `/v1/kiosk/in-service` and `/v1/kiosk/staff-pin/unlock`.
public struct KioskStatusView: Sendable, Hashable, Codable {
    /// Set while the kiosk is out of service: no kiosk session starts (the control API's do).
    public struct OutOfService: Sendable, Hashable, Codable {
        /// What the respondent's screen says besides "out of service", when given.
        public var message: String?
        public var since: String
        public init(message: String?, since: String) {
            self.message = message
            self.since = since
        }
    }

    /// The staff screen's PIN.
    public struct StaffPin: Sendable, Hashable, Codable {
        /// Whether `kioskStaffPinFile` (or the `surveyd-staff-pin` credential) is set: without it
        /// the staff screen is off.
        public var configured: Bool
        /// Wrong PINs in a row since the last right one, lockout or unlock.
        public var wrongInARow: Int
        /// Set while the way in is locked after wrong PINs; `surveyctl staff-pin unlock` ends it.
        public var lockedUntil: String?
        public init(configured: Bool, wrongInARow: Int, lockedUntil: String?) {
            self.configured = configured
            self.wrongInARow = wrongInARow
            self.lockedUntil = lockedUntil
        }
    }

    /// `in_service`, `out_of_service` or `closed` (outside `kioskOpenHours`).
    public var state: String
    public var outOfService: OutOfService?
    /// The first stage a kiosk respondent starts now.
    public var survey: String
    public var staffPin: StaffPin
    /// Since local midnight: the staff screen's counts (``KioskTodayCounts``).
    public var today: Today?

    public typealias Today = KioskTodayCounts

    public init(state: String, outOfService: OutOfService?, survey: String, staffPin: StaffPin, today: Today? = nil) {
        self.state = state
        self.outOfService = outOfService
        self.survey = survey
        self.staffPin = staffPin
        self.today = today
    }

    public static let inService = "in_service"
    public static let outOfServiceState = "out_of_service"
    public static let closed = "closed"

    /// `surveyctl status`'s lines.
    public var lines: [String] {
        var lines: [String] = []
        switch state {
        case Self.outOfServiceState:
            let message = outOfService?.message.map { ": \"\($0)\"" } ?? ""
            lines.append("kiosk: OUT OF SERVICE since \(outOfService?.since ?? "?")\(message); no kiosk session starts (`surveyctl kiosk in-service` ends it)")
        case Self.closed:
            lines.append("kiosk: closed (outside kioskOpenHours); survey \(survey)")
        default:
            lines.append("kiosk: in service; survey \(survey)")
        }
        if !staffPin.configured {
            lines.append("  staff screen: off (no kioskStaffPinFile)")
        } else if let until = staffPin.lockedUntil {
            lines.append("  staff screen: LOCKED after wrong PINs until \(until); `surveyctl staff-pin unlock` opens it")
        } else {
            lines.append("  staff screen: on" + (staffPin.wrongInARow > 0 ? ", \(staffPin.wrongInARow) wrong PIN\(staffPin.wrongInARow == 1 ? "" : "s") in a row" : ""))
        }
        if let today {
            let flags = today.flags.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            lines.append("  today: started \(today.started), completed \(today.completed), screened out \(today.screenedOut), abandoned \(today.abandoned), declined consent \(today.declined); flagged \(today.flagged)" + (flags.isEmpty ? "" : " (\(flags))"))
        }
        return lines
    }
}

/// `POST /v1/kiosk/out-of-service`'s body.
public struct OutOfServiceRequest: Sendable, Hashable, Codable {
    /// Shown on the respondent's screen below "out of service"; at most 200 characters, one line.
    public var message: String?
    public init(message: String? = nil) { self.message = message }
}

import Foundation

extension Rendering {
    /// `ready`, or `not ready` with each reason on a line of its own; then the kiosk's state
    /// when it is not in service.
    public static func health(_ h: HealthView) -> [String] {
        var lines = h.ready ? ["ready"] : ["not ready"] + h.reasons.map { "  \($0.code): \($0.message)" }
        if let kiosk = h.kiosk, kiosk != KioskStatusView.inService { lines.append("kiosk: \(kiosk.replacingOccurrences(of: "_", with: " "))") }
        return lines
    }
}

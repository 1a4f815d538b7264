#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Kiosk
import ControlAPI
import Logging

/// The kiosk's staff desk, built with the daemon when it serves kiosk pages.
extension Daemon {
    /// The staff PIN file, checked before anything is opened (exit 78 when it cannot be used).
    static func staffPin(_ configuration: DaemonConfiguration) throws -> StaffPinHash? {
        try StaffPinFile.load(configuration)
    }

    /// The desk over the state directory; nil without kiosk pages.
    static func staffDesk(_ configuration: DaemonConfiguration, pin: StaffPinHash?, exporter: MetricsExporter, logger: Logger) -> KioskStaffDesk? {
        guard configuration.kioskListen != nil else { return nil }
        let surveys = configuration.kioskSurveys.flatMap { try? KioskSurveyList.parse($0) } ?? []
        // The settings' checks accepted the hours: they read.
        let hours = configuration.kioskOpenHours.flatMap { try? KioskOpenHours(parsing: $0) }
        if pin == nil { logger.info("kiosk staff screen off: no kioskStaffPinFile and no surveyd-staff-pin credential") }
        if pin != nil, configuration.kioskAccess == .network {
            switch configuration.kioskStaffPinOverPlainHTTP {
            case .refuse:
                logger.info("kiosk staff screen only for a browser on this machine: the pages are served to other machines over plain HTTP, where the staff PIN would cross the network in the clear; other machines get a page saying so (kioskStaffPinOverPlainHTTP allow opens it to them, see doc/security.md)")
            case .allow:
                logger.warning("kiosk staff screen open to other machines over plain HTTP (kioskStaffPinOverPlainHTTP allow): anyone on the path can read the staff PIN and the staff cookie, and anyone who reaches the pages can lock the staff out with wrong PINs; serve the pages through a TLS proxy on this machine instead (doc/security.md)")
            }
        }
        return KioskStaffDesk(
            directory: configuration.stateDirectory, defaultStage: configuration.firstStage, pin: pin, surveys: surveys, logger: logger,
            events: exporter.metrics.events, metrics: StaffMetrics(exporter: exporter),
            isOpen: hours.map { hours -> @Sendable () -> Bool in { hours.isOpen(at: Date()) } },
            today: KioskTodayCounter(directory: configuration.stateDirectory, events: exporter.metrics.events, logger: logger),
            hours: hours)
    }
}

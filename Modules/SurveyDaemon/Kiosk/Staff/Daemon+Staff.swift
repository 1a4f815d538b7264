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
        return KioskStaffDesk(
            directory: configuration.stateDirectory, defaultStage: configuration.firstStage, pin: pin, surveys: surveys, logger: logger,
            events: exporter.metrics.events, metrics: StaffMetrics(exporter: exporter),
            isOpen: hours.map { hours -> @Sendable () -> Bool in { hours.isOpen(at: Date()) } },
            today: KioskTodayCounter(directory: configuration.stateDirectory, events: exporter.metrics.events, logger: logger))
    }
}

import Kiosk
import Logging
import Synchronization

extension ConfigurationReloader {
    /// Reads the staff PIN file again and applies `kioskSurveys`; a PIN file that cannot be used
    /// keeps the PIN in use (and its setting's old value), with the refusal in the log.
    func reloadStaff(_ desk: KioskStaffDesk, from new: DaemonConfiguration, applied: inout DaemonConfiguration) async {
        var pin = desk.pin
        do {
            pin = try StaffPinFile.load(new)
        } catch {
            applied.kioskStaffPinFile = current.kioskStaffPinFile
            logger.error("kiosk staff PIN not reloaded: \(error.detail); the staff screen keeps the PIN it had")
        }
        // The setting's check accepted the list when the configuration resolved.
        let surveys = new.kioskSurveys.flatMap { try? KioskSurveyList.parse($0) } ?? []
        await desk.reload(pin: pin, surveys: surveys)
    }
}

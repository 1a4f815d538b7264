/// The checks of the staff screen's settings, with the messages a start prints (exit 78).
extension DaemonSetting {
    static func checkKioskSurveys(_ text: String) -> String? {
        do {
            _ = try KioskSurveyList.parse(text)
            return nil
        } catch {
            return error.message
        }
    }

    static func checkOpenHours(_ text: String) -> String? {
        do {
            _ = try KioskOpenHours(parsing: text)
            return nil
        } catch {
            return error.message
        }
    }
}

extension DaemonConfiguration.StaffPinOverPlainHTTP: SettingChoice {}

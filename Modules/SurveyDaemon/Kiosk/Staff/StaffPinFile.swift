import ControlAPI

/// The staff PIN file the configuration names (`kioskStaffPinFile`, or systemd's
/// `surveyd-staff-pin` credential), read at start and on SIGHUP.
enum StaffPinFile {
    /// The name of the systemd credential that holds the PIN's hash (`LoadCredential=`).
    static let credentialName = "surveyd-staff-pin"

    /// The hash; nil when no file is configured (the staff screen is off). A file that cannot
    /// be used is a `ConfigurationError` (exit 78) naming it.
    static func load(_ configuration: DaemonConfiguration) throws(ConfigurationError) -> StaffPinHash? {
        guard let path = configuration.kioskStaffPinFile else { return nil }
        do {
            return try StaffPinHash.load(from: path)
        } catch {
            throw ConfigurationError(source: "kioskStaffPinFile", error.message)
        }
    }
}

/// A configuration value that cannot be used, with where it came from.
///
/// `source` names the place an operator fixes: `environment variable SURVEYD_BACKOFF_CAP`,
/// `configuration file /etc/surveyd.json, key maxInFlight`, `flag --idle-timeout`; `detail`
/// names the value and what is wrong with it. `surveyd` prints the description and exits 78.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public static let code = "configuration_invalid"
    /// Where the value came from: a file (and key), a variable, a flag, or the setting's name.
    public var source: String
    /// The value and what is wrong with it.
    public var detail: String

    init(source: String, _ detail: String) {
        self.source = source
        self.detail = detail
    }

    public var description: String { "surveyd configuration: \(source): \(detail)" }
}

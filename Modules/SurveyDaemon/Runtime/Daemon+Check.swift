#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Networking

extension Daemon {
    static let noServerURL = DaemonStartError("no survey server URL is configured; give --server-url, SURVEYD_SERVER_URL or serverURL in the --config file (or run surveyd --demo)")

    /// What `surveyd --check-config` checks beyond the settings' own checks (which `resolve`
    /// made): the start-time checks that need nothing opened, with the messages a start gives.
    /// Nothing is created, bound or locked.
    /// - Throws: `DaemonStartError` when no server URL is configured or the socket group does not
    ///   exist; `ConfigurationError` for a kiosk logo, a key or a staff PIN file that cannot be used.
    public static func check(_ configuration: DaemonConfiguration) throws {
        guard let serverURL = configuration.serverURL.flatMap(URL.init(string:)), TCPConnectProbe(baseURL: serverURL) != nil else {
            throw noServerURL
        }
        _ = try group(configuration.socketGroup)
        _ = try kioskPlan(configuration)
        _ = try DaemonEncryption.keys(configuration)
        _ = try staffPin(configuration)
    }

    /// The resolved settings, one `key: value` line each (`surveyd --check-config` prints them).
    public static func describe(_ configuration: DaemonConfiguration) -> String {
        DaemonSetting.all.map { setting in
            let value: String = switch setting.get(configuration) {
            case .text(let text)?: text
            case .number(let number)?: DaemonSetting.numberText(number)
            case .wholeNumber(let whole)?: String(whole)
            case nil: "(unset)"
            }
            return "\(setting.key): \(value)"
        }.joined(separator: "\n")
    }
}

import Configuration
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

extension DaemonConfiguration {
    /// Values set on the command line (or by demo mode), by setting: the highest-priority source.
    public struct Overrides: Sendable {
        /// Who set the values, for error messages.
        public enum Origin: Sendable {
            /// `surveyd`'s flags: a value is named by its flag.
            case flags
            /// `surveyd --demo`, which chooses the server, state directory and socket.
            case demoMode
        }

        public let origin: Origin
        var values: [String: SettingValue] = [:]

        public init(_ origin: Origin = .flags) {
            self.origin = origin
        }

        /// The value set for the setting held at `path`, or nil; setting nil removes it.
        public subscript<Value: SettingValueConvertible>(_ path: WritableKeyPath<DaemonConfiguration, Value>) -> Value? {
            get { values[DaemonSetting.of(path).key].flatMap(Value.init(settingValue:)) }
            set { values[DaemonSetting.of(path).key] = newValue?.settingValue }
        }
    }

    /// Resolves the configuration through swift-configuration. Highest priority first: demo mode's
    /// values (when given), flags, the environment, the JSON file (when given), the defaults.
    /// Every value each source gives is checked against its setting's declaration, the ones a
    /// higher source overrides too: a wrong value waiting in the file or the environment is found
    /// now, not on the day the flag that hides it is dropped.
    ///
    /// - Throws: `ConfigurationError` naming where the wrong value came from (the file and key,
    ///   the variable, the flag) and the value.
    public static func resolve(
        file: String?,
        environment: [String: String],
        flags: Overrides = Overrides(),
        demo: Overrides? = nil,
        userID: UInt32
    ) async throws(ConfigurationError) -> DaemonConfiguration {
        let defaults = DaemonConfiguration(environment: environment, userID: userID)
        var sources: [SettingSource] = []
        if let demo { sources.append(.overrides(demo)) }
        sources.append(.overrides(flags))
        sources.append(.environment(environment))
        if let file { sources.append(try .file(file)) }
        sources.append(.defaults(defaults))

        // The file first, then the environment, flags and demo mode: each source on its own.
        for source in sources.dropLast().reversed() {
            let single = ConfigReader(providers: [source])
            for setting in DaemonSetting.all { _ = try await setting.read(from: single) }
        }

        let winners = WinningSources()
        let reader = ConfigReader(providers: sources, accessReporter: winners)
        var configuration = defaults
        for setting in DaemonSetting.all {
            if let value = try await setting.read(from: reader) {
                setting.set(&configuration, value)
            }
        }

        func origin(_ path: PartialKeyPath<DaemonConfiguration>) -> String {
            let setting = DaemonSetting.of(path)
            let name = winners.providerName(of: setting.key)
            return sources.first { $0.providerName == name }?.origin(setting) ?? setting.key
        }
        guard configuration.backoffBaseSeconds <= configuration.backoffCapSeconds else {
            throw ConfigurationError(
                source: "backoffBaseSeconds/backoffCapSeconds",
                "need 0 < base <= cap <= \(DaemonSetting.numberText(maxBackoffSeconds)) (1 day), got base \(configuration.backoffBaseSeconds) (\(origin(\.backoffBaseSeconds))) and cap \(configuration.backoffCapSeconds) (\(origin(\.backoffCapSeconds)))"
            )
        }
        if let listen = configuration.kioskListen, let address = try? ListenAddress(parsing: listen),
            !address.isLoopback, configuration.kioskAccess == .loopback {
            throw ConfigurationError(
                source: origin(\.kioskListen),
                "\(address) is reachable from other machines, and kioskAccess is loopback (\(origin(\.kioskAccess))); bind a loopback address such as 127.0.0.1:\(address.port), or give --kiosk-access network after reading the risks in doc/kiosk.md")
        }
        return configuration
    }
}

extension DaemonSetting {
    /// The value the reader resolves for this setting, already checked by its source; nil when
    /// no source has one.
    func read(from reader: ConfigReader) async throws(ConfigurationError) -> SettingValue? {
        let key = ConfigKey([self.key])
        do {
            switch kind {
            case .text, .choice: return try await reader.fetchString(forKey: key).map(SettingValue.text)
            case .seconds: return try await reader.fetchDouble(forKey: key).map(SettingValue.number)
            case .wholeNumber: return try await reader.fetchInt(forKey: key).map(SettingValue.wholeNumber)
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(source: self.key, "cannot be read: \(error)")
        }
    }
}

/// Which source gave each setting its value: the last provider a lookup asked, when it had one.
final class WinningSources: AccessReporter, Sendable {
    private let names = Mutex<[String: String]>([:])

    func report(_ event: AccessEvent) {
        guard let last = event.providerResults.last, case .success(let lookup) = last.result, lookup.value != nil else { return }
        names.withLock { $0[event.metadata.key.description] = last.providerName }
    }

    func providerName(of key: String) -> String? {
        names.withLock { $0[key] }
    }
}

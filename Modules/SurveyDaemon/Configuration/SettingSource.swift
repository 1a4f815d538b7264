import Configuration
import Foundation

/// One source of settings (flags, the environment, a JSON file, the defaults) as a
/// swift-configuration provider that hands over only values its setting accepts.
///
/// It wraps the source's own snapshot (`EnvironmentVariablesProvider`, `JSONSnapshot`,
/// `InMemoryProvider`) and checks each value it finds against the setting's declaration, so that
/// a wrong value is reported with the source's own name for it (`environment variable
/// SURVEYD_MAX_IN_FLIGHT`, `configuration file /etc/surveyd.json, key maxInFlight`, `flag
/// --max-in-flight`) and the value as the source wrote it.
struct SettingSource: ConfigProvider, ConfigSnapshot {
    let providerName: String
    let upstream: any ConfigSnapshot
    /// Whether the source holds text only (the environment): values are then parsed here, so
    /// that `1e6` is a whole number and `inf` is refused as not finite.
    let textual: Bool
    /// How this source names a setting, e.g. `environment variable SURVEYD_LANG`.
    let origin: @Sendable (DaemonSetting) -> String

    static func overrides(_ overrides: DaemonConfiguration.Overrides) -> SettingSource {
        let values = overrides.values.reduce(into: [AbsoluteConfigKey: ConfigValue]()) { values, entry in
            values[AbsoluteConfigKey([entry.key])] = ConfigValue(entry.value.content, isSecret: false)
        }
        switch overrides.origin {
        case .flags:
            return SettingSource(providerName: "command line", upstream: InMemoryProvider(name: "command line", values: values).snapshot(), textual: false) { setting in
                setting.flag.map { "flag --\($0)" } ?? "override \(setting.key)"
            }
        case .demoMode:
            return SettingSource(providerName: "demo mode", upstream: InMemoryProvider(name: "demo mode", values: values).snapshot(), textual: false) { setting in
                "demo mode's \(setting.key)"
            }
        }
    }

    static func environment(_ environment: [String: String]) -> SettingSource {
        let variables = EnvironmentVariablesProvider(environmentVariables: environment).mapKeys { key in
            DaemonSetting.named(key.description).map { AbsoluteConfigKey([$0.variable]) } ?? key
        }
        return SettingSource(providerName: "environment", upstream: variables.snapshot(), textual: true) { setting in
            "environment variable \(setting.variable)"
        }
    }

    /// The JSON file at `path`. It is read here rather than by `FileProvider` so that a file
    /// that cannot be read and one that is not JSON each get their own message.
    static func file(_ path: String) throws(ConfigurationError) -> SettingSource {
        let name = "configuration file \(path)"
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError(source: name, "cannot be read (\(error.localizedDescription)); check the path given to --config")
        }
        let snapshot: JSONSnapshot
        do {
            snapshot = try JSONSnapshot(data: data.bytes, providerName: name, parsingOptions: .default)
        } catch {
            if (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) == nil {
                throw ConfigurationError(source: name, "is not valid JSON")
            }
            throw ConfigurationError(source: name, "must hold one JSON object of settings, e.g. {\"maxInFlight\": 8} (\(error))")
        }
        return SettingSource(providerName: name, upstream: snapshot, textual: false) { setting in
            "\(name), key \(setting.key)"
        }
    }

    static func defaults(_ defaults: DaemonConfiguration) -> SettingSource {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for setting in DaemonSetting.all {
            values[AbsoluteConfigKey([setting.key])] = setting.get(defaults).map { ConfigValue($0.content, isSecret: false) }
        }
        return SettingSource(providerName: "defaults", upstream: InMemoryProvider(name: "defaults", values: values).snapshot(), textual: false) { setting in
            "default \(setting.key)"
        }
    }

    // MARK: ConfigSnapshot

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        guard let setting = DaemonSetting.named(key.description) else {
            return try upstream.value(forKey: key, type: type)
        }
        let found: LookupResult
        let value: SettingValue
        if textual {
            found = try upstream.value(forKey: key, type: .string)
            guard case .string(let text)? = found.value?.content else { return found }
            value = try setting.kind.parse(text, origin: origin(setting))
        } else {
            do {
                found = try upstream.value(forKey: key, type: setting.kind.configType)
            } catch {
                throw setting.wrongType(upstream.value(forKey:type:), key: key, origin: origin(setting))
            }
            guard let content = found.value?.content, let typed = SettingValue(content) else { return found }
            value = typed
        }
        try setting.check(value, origin: origin(setting))
        return LookupResult(encodedKey: found.encodedKey, value: ConfigValue(value.content, isSecret: false))
    }

    // MARK: ConfigProvider (the values never change)

    func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try value(forKey: key, type: type)
    }

    nonisolated(nonsending) func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey,
        type: ConfigType,
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchValueFromValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    func snapshot() -> any ConfigSnapshot { self }

    nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
    }
}

extension SettingValue {
    init?(_ content: ConfigContent) {
        switch content {
        case .string(let text): self = .text(text)
        case .double(let number): self = .number(number)
        case .int(let whole): self = .wholeNumber(whole)
        default: return nil
        }
    }

    var content: ConfigContent {
        switch self {
        case .text(let text): .string(text)
        case .number(let number): .double(number)
        case .wholeNumber(let whole): .int(whole)
        }
    }
}

extension DaemonSetting.Kind {
    var configType: ConfigType {
        switch self {
        case .text, .choice: .string
        case .seconds: .double
        case .wholeNumber: .int
        }
    }

    /// What a value of the wrong type should have been, e.g. `a whole number`.
    var expected: String {
        switch self {
        case .text: "text"
        case .choice(let names): DaemonSetting.oneOf(names)
        case .seconds: "a number of seconds"
        case .wholeNumber: "a whole number"
        }
    }

    /// A value written as text, as the environment gives it.
    func parse(_ text: String, origin: String) throws(ConfigurationError) -> SettingValue {
        switch self {
        case .text, .choice:
            return .text(text)
        case .seconds:
            guard let number = Double(text) else { throw ConfigurationError(source: origin, "\"\(text)\" is not a number") }
            guard number.isFinite else { throw ConfigurationError(source: origin, "\"\(text)\" is not a finite number") }
            return .number(number)
        case .wholeNumber:
            guard let number = Double(text) else { throw ConfigurationError(source: origin, "\"\(text)\" is not a number") }
            // Int(exactly:) is nil for fractions, infinities, NaN and values no Int holds (1e20).
            guard let whole = Int(exactly: number) else { throw ConfigurationError(source: origin, "\"\(text)\" is not a whole number") }
            return .wholeNumber(whole)
        }
    }
}

extension DaemonSetting {
    /// Checks a value against the declaration: a text's own check, the names of a choice, the
    /// bounds of a number.
    func check(_ value: SettingValue, origin: String) throws(ConfigurationError) {
        switch (kind, value) {
        case (.text(_, _, let check), .text(let text)):
            if let problem = check?(text) { throw ConfigurationError(source: origin, problem) }
        case (.choice(let names), .text(let text)):
            guard names.contains(text) else { throw ConfigurationError(source: origin, "\"\(text)\" is not \(DaemonSetting.oneOf(names))") }
        case (.seconds(let bounds), .number(let number)):
            guard bounds.contains(number) else { throw outOfBounds(bounds, got: "\(number)", origin: origin) }
        case (.wholeNumber(let bounds, _), .wholeNumber(let whole)):
            guard bounds.contains(Double(whole)) else { throw outOfBounds(bounds, got: "\(whole)", origin: origin) }
        default:
            throw ConfigurationError(source: origin, "has the wrong type; give \(kind.expected)")
        }
    }

    private func outOfBounds(_ bounds: Bounds, got value: String, origin: String) -> ConfigurationError {
        let unset = defaultValue == nil && unsetMeaning != nil ? "; leave it out for \(unsetMeaning!)" : ""
        return ConfigurationError(source: origin, "must be \(bounds.requirement), got \(value)\(unset)")
    }

    /// The error for a value a typed source (a JSON file) holds with the wrong type, showing the
    /// value when it is text or a number.
    func wrongType(_ lookup: (AbsoluteConfigKey, ConfigType) throws -> LookupResult, key: AbsoluteConfigKey, origin: String) -> ConfigurationError {
        let number: Double? = if case .double(let number)? = (try? lookup(key, .double))?.value?.content { number } else { nil }
        if case .wholeNumber = kind, let number {
            return ConfigurationError(source: origin, "\(DaemonSetting.numberText(number)) is not a whole number")
        }
        let shown: String
        if case .string(let text)? = (try? lookup(key, .string))?.value?.content {
            shown = "\"\(text)\""
        } else if let number {
            shown = DaemonSetting.numberText(number)
        } else {
            shown = "the value"
        }
        return ConfigurationError(source: origin, "\(shown) has the wrong type; give \(kind.expected)")
    }
}

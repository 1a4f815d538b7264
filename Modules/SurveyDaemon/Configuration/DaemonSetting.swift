import Entities
public import Logging

/// One setting of `surveyd`, declared once: where each source names it (JSON key, environment
/// variable, flag), what it accepts, its default and one line of documentation. The resolution,
/// the checks with their messages, the flags' help and `doc/configuration.md`'s table all come
/// from these declarations (`DaemonSetting.all`).
public struct DaemonSetting: Sendable {
    /// The key in a JSON configuration file and in swift-configuration, e.g. `maxInFlight`.
    public let key: String
    /// The environment variable, e.g. `SURVEYD_MAX_IN_FLIGHT`.
    public let variable: String
    /// The long flag without its dashes, e.g. `max-in-flight`; nil when there is none.
    public let flag: String?
    /// What values the setting accepts.
    public let kind: Kind
    /// The default, or nil when the setting is unset by default or its default is computed.
    public let defaultValue: SettingValue?
    /// What leaving the setting unset means, e.g. `no cap`; nil when it has a default.
    public let unsetMeaning: String?
    /// How the default is computed, for the documentation; nil when it is a constant or none.
    public let computedDefault: String?
    /// What the setting does, in one line.
    public let doc: String

    let path: any AnyKeyPath & Sendable
    let get: @Sendable (DaemonConfiguration) -> SettingValue?
    let set: @Sendable (inout DaemonConfiguration, SettingValue) -> Void

    /// What a setting accepts; the checks and the documentation of the type and range come from it.
    public enum Kind: Sendable {
        /// Any text. `check` returns what is wrong with a value (e.g. `"x" is not an http URL`),
        /// or nil; `accepts` says what it takes for the documentation; `valueName` is the
        /// flag's value in the help, e.g. `url`.
        case text(valueName: String, accepts: String, check: (@Sendable (String) -> String?)? = nil)
        /// One of these names.
        case choice([String])
        /// A number of seconds within bounds.
        case seconds(Bounds)
        /// A whole number within bounds.
        case wholeNumber(Bounds, valueName: String = "n")
    }

    /// The lower and upper bound of a number, with what the upper bound means.
    public struct Bounds: Sendable {
        var lower: Double
        var lowerIncluded: Bool
        var upper: Double?
        /// Said after the upper bound, e.g. `1 week`.
        var note: String?

        /// Above `lower` (excluded) and at most `upper`.
        public static func above(_ lower: Double, atMost upper: Double, _ note: String? = nil) -> Bounds {
            Bounds(lower: lower, lowerIncluded: false, upper: upper, note: note)
        }

        /// From `lower` to `upper`, both included.
        public static func from(_ lower: Double, to upper: Double, _ note: String? = nil) -> Bounds {
            Bounds(lower: lower, lowerIncluded: true, upper: upper, note: note)
        }

        /// `lower` or more.
        public static func atLeast(_ lower: Double) -> Bounds {
            Bounds(lower: lower, lowerIncluded: true, upper: nil, note: nil)
        }

        /// Whether `value` is within the bounds; NaN never is, infinity only without an upper bound.
        func contains(_ value: Double) -> Bool {
            let aboveLower = lowerIncluded ? value >= lower : value > lower
            return aboveLower && (upper.map { value <= $0 } ?? true)
        }

        /// `from 1 to 64`, `above 0 and at most 604800 (1 week)`, `at least 1024`.
        var requirement: String {
            let note = self.note.map { " (\($0))" } ?? ""
            switch (lowerIncluded, upper) {
            case (true, let upper?): return "from \(DaemonSetting.numberText(lower)) to \(DaemonSetting.numberText(upper))\(note)"
            case (false, let upper?): return "above \(DaemonSetting.numberText(lower)) and at most \(DaemonSetting.numberText(upper))\(note)"
            case (true, nil): return "at least \(DaemonSetting.numberText(lower))"
            case (false, nil): return "above \(DaemonSetting.numberText(lower))"
            }
        }
    }

    /// Declares a setting held by the property at `path`.
    ///
    /// - Parameters:
    ///   - default: the default; nil when the property has none (`none` then says what that
    ///     means) or computes it (`computed` then describes how).
    init<Value: SettingValueConvertible>(
        _ path: any WritableKeyPath<DaemonConfiguration, Value> & Sendable,
        key: String,
        variable: String,
        flag: String? = nil,
        kind: Kind,
        default defaultValue: Value? = nil,
        none: String? = nil,
        computed: String? = nil,
        doc: String
    ) {
        precondition((defaultValue == nil) != (none == nil && computed == nil), "\(key): give a default, none: or computed:")
        self.key = key
        self.variable = variable
        self.flag = flag
        self.kind = kind
        self.defaultValue = defaultValue.flatMap(\.settingValue)
        self.unsetMeaning = none
        self.computedDefault = computed
        self.doc = doc
        self.path = path
        get = { $0[keyPath: path].settingValue }
        set = { configuration, value in
            if let typed = Value(settingValue: value) { configuration[keyPath: path] = typed }
        }
    }

    /// The declared default of the property at `path`, for the property's initial value.
    static func defaultValue<Value: SettingValueConvertible>(of path: KeyPath<DaemonConfiguration, Value>) -> Value {
        guard let setting = all.first(where: { ($0.path as AnyKeyPath) == path }), let value = setting.defaultValue.flatMap(Value.init(settingValue:)) else {
            preconditionFailure("no default is declared for \(path) in DaemonSetting.all")
        }
        return value
    }

    /// The setting with this key, e.g. `maxInFlight`.
    public static func named(_ key: String) -> DaemonSetting? { byKey[key] }

    /// The setting held by the property at `path`.
    public static func of(_ path: PartialKeyPath<DaemonConfiguration>) -> DaemonSetting {
        guard let setting = all.first(where: { ($0.path as AnyKeyPath) == path }) else { preconditionFailure("\(path) is not declared in DaemonSetting.all") }
        return setting
    }

    static let byKey: [String: DaemonSetting] = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })
}

/// A setting's value as any source gives it.
public enum SettingValue: Sendable, Hashable {
    case text(String)
    case number(Double)
    case wholeNumber(Int)
}

/// A type a setting's property holds.
public protocol SettingValueConvertible: Sendable {
    /// The value, or nil for an optional property that is unset.
    var settingValue: SettingValue? { get }
    init?(settingValue: SettingValue)
}

extension String: SettingValueConvertible {
    public var settingValue: SettingValue? { .text(self) }
    public init?(settingValue: SettingValue) {
        guard case .text(let text) = settingValue else { return nil }
        self = text
    }
}

extension Double: SettingValueConvertible {
    public var settingValue: SettingValue? { .number(self) }
    public init?(settingValue: SettingValue) {
        switch settingValue {
        case .number(let number): self = number
        case .wholeNumber(let whole): self = Double(whole)
        case .text: return nil
        }
    }
}

extension Int: SettingValueConvertible {
    public var settingValue: SettingValue? { .wholeNumber(self) }
    public init?(settingValue: SettingValue) {
        guard case .wholeNumber(let whole) = settingValue else { return nil }
        self = whole
    }
}

extension Optional: SettingValueConvertible where Wrapped: SettingValueConvertible {
    public var settingValue: SettingValue? { self?.settingValue }
    public init?(settingValue: SettingValue) {
        guard let wrapped = Wrapped(settingValue: settingValue) else { return nil }
        self = .some(wrapped)
    }
}

/// An enumeration a setting holds, spelled by its raw values.
public protocol SettingChoice: SettingValueConvertible, CaseIterable, RawRepresentable<String> {}

extension SettingChoice {
    public var settingValue: SettingValue? { .text(rawValue) }
    public init?(settingValue: SettingValue) {
        guard case .text(let text) = settingValue else { return nil }
        self.init(rawValue: text)
    }
    /// The raw values, for `Kind.choice`.
    static var names: [String] { allCases.map(\.rawValue) }
}

extension Language: SettingChoice {}
extension DaemonConfiguration.Durability: SettingChoice {}
extension DaemonConfiguration.KioskAccess: SettingChoice {}
extension DaemonConfiguration.KioskKeyboard: SettingChoice {}
extension Logger.Level: SettingChoice {}

extension DaemonSetting {
    /// `a`, `a or b`, `a, b or c`.
    static func oneOf(_ names: [String]) -> String {
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
    }

    /// A bound or a value as messages and the documentation write it: `604800`, `0.5`, `inf`.
    static func numberText(_ number: Double) -> String {
        if number.isFinite, number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return "\(number)"
    }
}

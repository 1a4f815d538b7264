import ControlAPI
import Foundation
import Storage

/// Everything `surveyd` can be configured with, and where each value comes from.
///
/// Values are resolved in this order, each overriding the one before: built-in defaults, an
/// optional JSON file, the environment (`SURVEYD_*`, plus systemd's `STATE_DIRECTORY` and
/// `RUNTIME_DIRECTORY` for the default paths), and command-line flags. `doc/configuration.md`
/// lists every setting with its default.
public struct DaemonConfiguration: Sendable, Hashable {
    /// Base URL of the survey server, e.g. `https://survey.example.org`. Required (except in demo mode).
    public var serverURL: String?
    /// Language used when a session does not name one: `ko` or `en`.
    public var defaultLanguage: String = "ko"
    /// Where the journal, queue and definition cache live.
    public var stateDirectory: String
    /// The control socket.
    public var socketPath: String
    /// Group allowed to use the control socket (socket mode 0660); nil keeps it 0600, owner only.
    public var socketGroup: String?
    /// First retry delay of a transient delivery failure, in seconds.
    public var backoffBaseSeconds: Double = 1
    /// Longest retry delay, in seconds.
    public var backoffCapSeconds: Double = 300
    /// `strict`: every acknowledged answer is fsync'd first. `relaxed`: acknowledged once written
    /// to the kernel and fsync'd within `Durability.relaxedSyncInterval`; a power loss may lose that last moment.
    public var durability: Durability = .strict
    /// The most the submission queue may hold on disk, in megabytes; nil for no cap. When it is
    /// full, finishing a stage fails with 503 `queue_failed` until deliveries free space.
    public var queueDiskCapMegabytes: Int?
    /// Sessions idle longer than this are closed as `abandoned`, in seconds.
    public var idleSessionTimeoutSeconds: Double = 900
    /// How long a finished stage waits for its delivery before the outcome is `queued`, in seconds.
    public var deliveryWaitSeconds: Double = 2
    /// Uploads in flight at once.
    public var maxInFlight: Int = 4
    /// How long a connectivity verdict is reused, in seconds.
    public var connectivityCacheSeconds: Double = 1
    /// Largest control request body accepted, in bytes.
    public var maxRequestBytes: Int = 64 * 1024
    /// How long a control request's head may take from its first byte, and its body from the end
    /// of its head, in seconds.
    public var controlReadTimeoutSeconds: Double = 10
    /// How long a control connection may stay open with no request after its last response, in seconds.
    public var controlIdleTimeoutSeconds: Double = 60
    /// The most control connections open at once.
    public var maxControlConnections: Int = 256
    /// A file holding the survey server's bearer token; read at start and again once after a 401.
    public var tokenFile: String?

    public enum Durability: String, Sendable, Hashable, Codable, CaseIterable {
        case strict, relaxed

        /// With `relaxed`, the longest a written record waits for its fdatasync.
        public static let relaxedSyncInterval: Duration = .milliseconds(200)
    }

    /// The journals' durability mode for `durability`.
    public var journalDurability: JournalDurability {
        switch durability {
        case .strict: .strict
        case .relaxed: .relaxed(syncInterval: Durability.relaxedSyncInterval)
        }
    }

    /// The submission queue's disk cap in bytes, or nil.
    public var queueDiskCapBytes: Int? { queueDiskCapMegabytes.map { $0 << 20 } }

    /// The longest any seconds setting may be: one week. `check()` holds every one to it, so that
    /// the durations below cannot overflow.
    public static let maxSeconds: Double = 7 * 24 * 3600
    /// The longest retry delay allowed: one day.
    public static let maxBackoffSeconds: Double = 24 * 3600
    /// The largest queue disk cap, in megabytes: 1 TiB.
    public static let maxQueueDiskCapMegabytes = 1 << 20
    /// The longest control read timeout: one hour.
    public static let maxControlReadTimeoutSeconds: Double = 3600
    /// The longest control idle timeout: one day.
    public static let maxControlIdleTimeoutSeconds: Double = 24 * 3600
    /// The most control connections that may be allowed.
    public static let maxControlConnectionsLimit = 65536

    /// `idleSessionTimeoutSeconds` as a duration (valid after `check()`).
    public var idleSessionTimeout: Duration { Self.duration(seconds: idleSessionTimeoutSeconds) }
    /// `deliveryWaitSeconds` as a duration (valid after `check()`).
    public var deliveryWait: Duration { Self.duration(seconds: deliveryWaitSeconds) }
    /// `connectivityCacheSeconds` as a duration (valid after `check()`).
    public var connectivityCache: Duration { Self.duration(seconds: connectivityCacheSeconds) }
    /// `backoffBaseSeconds` as a duration (valid after `check()`).
    public var backoffBase: Duration { Self.duration(seconds: backoffBaseSeconds) }
    /// `backoffCapSeconds` as a duration (valid after `check()`).
    public var backoffCap: Duration { Self.duration(seconds: backoffCapSeconds) }
    /// The control connections' timeouts and cap (valid after `check()`).
    public var controlLimits: ControlConnectionLimits {
        ControlConnectionLimits(
            readTimeout: Self.duration(seconds: controlReadTimeoutSeconds),
            idleTimeout: Self.duration(seconds: controlIdleTimeoutSeconds),
            maxConnections: maxControlConnections)
    }

    /// Whole milliseconds; a value `check()` would refuse (not finite, negative or over
    /// `maxSeconds`) is clamped to 0 ... `maxSeconds` instead of trapping.
    static func duration(seconds: Double) -> Duration {
        let clamped = seconds.isNaN ? 0 : min(max(seconds, 0), maxSeconds)
        return .milliseconds(Int64((clamped * 1000).rounded()))
    }

    /// The settings a JSON file, the environment or flags may give; nil leaves the value as it was.
    public struct Overrides: Sendable, Hashable, Codable {
        public var serverURL: String?
        public var defaultLanguage: String?
        public var stateDirectory: String?
        public var socketPath: String?
        public var socketGroup: String?
        public var backoffBaseSeconds: Double?
        public var backoffCapSeconds: Double?
        public var durability: Durability?
        public var idleSessionTimeoutSeconds: Double?
        public var deliveryWaitSeconds: Double?
        public var maxInFlight: Int?
        public var connectivityCacheSeconds: Double?
        public var maxRequestBytes: Int?
        public var tokenFile: String?
        public var queueDiskCapMegabytes: Int?
        public var controlReadTimeoutSeconds: Double?
        public var controlIdleTimeoutSeconds: Double?
        public var maxControlConnections: Int?

        public init() {}
    }

    /// The defaults for a user and environment, before any file, variable or flag.
    public init(environment: [String: String], userID: UInt32) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        if let dir = environment["STATE_DIRECTORY"]?.split(separator: ":").first {
            stateDirectory = String(dir)
        } else if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty {
            stateDirectory = xdg + "/surveyd"
        } else if let home {
            stateDirectory = home + "/.local/state/surveyd"
        } else {
            stateDirectory = "/tmp/surveyd-\(userID)/state"
        }
        socketPath = ControlDefaults.socketPath(environment: environment, userID: userID)
    }

    /// Resolves the configuration: defaults, then the JSON file (when given), then the
    /// environment, then flags.
    ///
    /// - Throws: `ConfigurationError` naming the file, variable or setting that is wrong.
    public static func resolve(
        file: String?,
        environment: [String: String],
        flags: Overrides,
        userID: UInt32
    ) throws(ConfigurationError) -> DaemonConfiguration {
        var configuration = DaemonConfiguration(environment: environment, userID: userID)
        if let file {
            configuration.apply(try loadFile(file))
        }
        configuration.apply(try fromEnvironment(environment))
        configuration.apply(flags)
        try configuration.check()
        return configuration
    }

    public mutating func apply(_ overrides: Overrides) {
        if let v = overrides.serverURL { serverURL = v }
        if let v = overrides.defaultLanguage { defaultLanguage = v }
        if let v = overrides.stateDirectory { stateDirectory = v }
        if let v = overrides.socketPath { socketPath = v }
        if let v = overrides.socketGroup { socketGroup = v }
        if let v = overrides.backoffBaseSeconds { backoffBaseSeconds = v }
        if let v = overrides.backoffCapSeconds { backoffCapSeconds = v }
        if let v = overrides.durability { durability = v }
        if let v = overrides.idleSessionTimeoutSeconds { idleSessionTimeoutSeconds = v }
        if let v = overrides.deliveryWaitSeconds { deliveryWaitSeconds = v }
        if let v = overrides.maxInFlight { maxInFlight = v }
        if let v = overrides.connectivityCacheSeconds { connectivityCacheSeconds = v }
        if let v = overrides.maxRequestBytes { maxRequestBytes = v }
        if let v = overrides.tokenFile { tokenFile = v }
        if let v = overrides.queueDiskCapMegabytes { queueDiskCapMegabytes = v }
        if let v = overrides.controlReadTimeoutSeconds { controlReadTimeoutSeconds = v }
        if let v = overrides.controlIdleTimeoutSeconds { controlIdleTimeoutSeconds = v }
        if let v = overrides.maxControlConnections { maxControlConnections = v }
    }

    /// The languages the contract knows.
    public static let languages: Set<String> = ["ko", "en"]

    /// The environment variables read, by setting.
    public static let environmentNames: [(variable: String, setting: String)] = [
        ("SURVEYD_SERVER_URL", "serverURL"), ("SURVEYD_LANG", "defaultLanguage"),
        ("SURVEYD_STATE_DIR", "stateDirectory"), ("SURVEYD_SOCKET", "socketPath"),
        ("SURVEYD_SOCKET_GROUP", "socketGroup"), ("SURVEYD_BACKOFF_BASE", "backoffBaseSeconds"),
        ("SURVEYD_BACKOFF_CAP", "backoffCapSeconds"), ("SURVEYD_DURABILITY", "durability"),
        ("SURVEYD_IDLE_TIMEOUT", "idleSessionTimeoutSeconds"), ("SURVEYD_DELIVERY_WAIT", "deliveryWaitSeconds"),
        ("SURVEYD_MAX_IN_FLIGHT", "maxInFlight"), ("SURVEYD_CONNECTIVITY_CACHE", "connectivityCacheSeconds"),
        ("SURVEYD_MAX_REQUEST_BYTES", "maxRequestBytes"), ("SURVEYD_TOKEN_FILE", "tokenFile"),
        ("SURVEYD_QUEUE_DISK_CAP_MB", "queueDiskCapMegabytes"),
        ("SURVEYD_CONTROL_READ_TIMEOUT", "controlReadTimeoutSeconds"), ("SURVEYD_CONTROL_IDLE_TIMEOUT", "controlIdleTimeoutSeconds"),
        ("SURVEYD_MAX_CONTROL_CONNECTIONS", "maxControlConnections"),
    ]

    static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> Overrides {
        var o = Overrides()
        func parse(_ name: String) throws(ConfigurationError) -> (text: String, value: Double)? {
            guard let text = environment[name] else { return nil }
            guard let value = Double(text) else {
                throw ConfigurationError(source: "environment variable \(name)", "\"\(text)\" is not a number")
            }
            return (text, value)
        }
        func number(_ name: String) throws(ConfigurationError) -> Double? {
            guard let (text, value) = try parse(name) else { return nil }
            guard value.isFinite else {
                throw ConfigurationError(source: "environment variable \(name)", "\"\(text)\" is not a finite number")
            }
            return value
        }
        func wholeNumber(_ name: String) throws(ConfigurationError) -> Int? {
            guard let (text, value) = try parse(name) else { return nil }
            // Int(exactly:) is nil for fractions, infinities, NaN and values no Int holds (1e20).
            guard let whole = Int(exactly: value) else {
                throw ConfigurationError(source: "environment variable \(name)", "\"\(text)\" is not a whole number")
            }
            return whole
        }
        o.serverURL = environment["SURVEYD_SERVER_URL"]
        o.defaultLanguage = environment["SURVEYD_LANG"]
        o.stateDirectory = environment["SURVEYD_STATE_DIR"]
        o.socketPath = environment["SURVEYD_SOCKET"]
        o.socketGroup = environment["SURVEYD_SOCKET_GROUP"]
        o.backoffBaseSeconds = try number("SURVEYD_BACKOFF_BASE")
        o.backoffCapSeconds = try number("SURVEYD_BACKOFF_CAP")
        if let text = environment["SURVEYD_DURABILITY"] {
            guard let value = Durability(rawValue: text) else {
                throw ConfigurationError(source: "environment variable SURVEYD_DURABILITY", "\"\(text)\" is not strict or relaxed")
            }
            o.durability = value
        }
        o.idleSessionTimeoutSeconds = try number("SURVEYD_IDLE_TIMEOUT")
        o.deliveryWaitSeconds = try number("SURVEYD_DELIVERY_WAIT")
        o.maxInFlight = try wholeNumber("SURVEYD_MAX_IN_FLIGHT")
        o.connectivityCacheSeconds = try number("SURVEYD_CONNECTIVITY_CACHE")
        o.maxRequestBytes = try wholeNumber("SURVEYD_MAX_REQUEST_BYTES")
        o.tokenFile = environment["SURVEYD_TOKEN_FILE"]
        o.queueDiskCapMegabytes = try wholeNumber("SURVEYD_QUEUE_DISK_CAP_MB")
        o.controlReadTimeoutSeconds = try number("SURVEYD_CONTROL_READ_TIMEOUT")
        o.controlIdleTimeoutSeconds = try number("SURVEYD_CONTROL_IDLE_TIMEOUT")
        o.maxControlConnections = try wholeNumber("SURVEYD_MAX_CONTROL_CONNECTIONS")
        return o
    }

    static func loadFile(_ path: String) throws(ConfigurationError) -> Overrides {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError(source: "configuration file \(path)", "cannot be read (\(error.localizedDescription)); check the path given to --config")
        }
        do {
            let decoder = JSONDecoder()
            return try decoder.decode(Overrides.self, from: data)
        } catch let error as DecodingError {
            throw ConfigurationError(source: "configuration file \(path)", error.configurationDescription)
        } catch {
            throw ConfigurationError(source: "configuration file \(path)", "\(error)")
        }
    }

    /// Checks values that every source may get wrong.
    func check() throws(ConfigurationError) {
        if let serverURL {
            guard let url = URL(string: serverURL), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw ConfigurationError(source: "serverURL", "\"\(serverURL)\" is not an http or https URL with a host, e.g. https://survey.example.org")
            }
        }
        guard Self.languages.contains(defaultLanguage) else {
            throw ConfigurationError(source: "defaultLanguage", "\"\(defaultLanguage)\" is not ko or en")
        }
        // Comparisons are written so that NaN fails them; infinities fail the upper bounds.
        let maxSeconds = Self.maxSeconds
        guard backoffBaseSeconds > 0, backoffCapSeconds >= backoffBaseSeconds, backoffCapSeconds <= Self.maxBackoffSeconds else {
            throw ConfigurationError(source: "backoffBaseSeconds/backoffCapSeconds", "need 0 < base <= cap <= \(Int(Self.maxBackoffSeconds)) (1 day), got base \(backoffBaseSeconds) and cap \(backoffCapSeconds)")
        }
        guard idleSessionTimeoutSeconds > 0, idleSessionTimeoutSeconds <= maxSeconds else {
            throw ConfigurationError(source: "idleSessionTimeoutSeconds", "must be above 0 and at most \(Int(maxSeconds)) (1 week), got \(idleSessionTimeoutSeconds)")
        }
        guard deliveryWaitSeconds >= 0, deliveryWaitSeconds <= maxSeconds else {
            throw ConfigurationError(source: "deliveryWaitSeconds", "must be from 0 to \(Int(maxSeconds)) (1 week), got \(deliveryWaitSeconds)")
        }
        guard (1...64).contains(maxInFlight) else {
            throw ConfigurationError(source: "maxInFlight", "must be from 1 to 64, got \(maxInFlight)")
        }
        guard connectivityCacheSeconds >= 0, connectivityCacheSeconds <= maxSeconds else {
            throw ConfigurationError(source: "connectivityCacheSeconds", "must be from 0 to \(Int(maxSeconds)) (1 week), got \(connectivityCacheSeconds)")
        }
        guard maxRequestBytes >= 1024 else {
            throw ConfigurationError(source: "maxRequestBytes", "must be at least 1024, got \(maxRequestBytes)")
        }
        guard controlReadTimeoutSeconds > 0, controlReadTimeoutSeconds <= Self.maxControlReadTimeoutSeconds else {
            throw ConfigurationError(source: "controlReadTimeoutSeconds", "must be above 0 and at most \(Int(Self.maxControlReadTimeoutSeconds)) (1 hour), got \(controlReadTimeoutSeconds)")
        }
        guard controlIdleTimeoutSeconds > 0, controlIdleTimeoutSeconds <= Self.maxControlIdleTimeoutSeconds else {
            throw ConfigurationError(source: "controlIdleTimeoutSeconds", "must be above 0 and at most \(Int(Self.maxControlIdleTimeoutSeconds)) (1 day), got \(controlIdleTimeoutSeconds)")
        }
        guard (1...Self.maxControlConnectionsLimit).contains(maxControlConnections) else {
            throw ConfigurationError(source: "maxControlConnections", "must be from 1 to \(Self.maxControlConnectionsLimit), got \(maxControlConnections)")
        }
        if let cap = queueDiskCapMegabytes, !(1...Self.maxQueueDiskCapMegabytes).contains(cap) {
            throw ConfigurationError(source: "queueDiskCapMegabytes", "must be from 1 to \(Self.maxQueueDiskCapMegabytes) (megabytes), got \(cap); leave it out for no cap")
        }
        // sun_path holds 108 bytes including the terminating NUL.
        guard socketPath.utf8.count < 108 else {
            throw ConfigurationError(source: "socketPath", "\"\(socketPath)\" is \(socketPath.utf8.count) bytes; a Unix socket path must be under 108 bytes, choose a shorter one")
        }
    }
}

/// A configuration value that cannot be used.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public static let code = "configuration_invalid"
    /// Where the value came from: a file, a variable, or the setting's name.
    public var source: String
    public var detail: String

    init(source: String, _ detail: String) {
        self.source = source
        self.detail = detail
    }

    public var description: String { "surveyd configuration: \(source): \(detail)" }
}

extension DecodingError {
    var configurationDescription: String {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            let key = context.codingPath.map(\.stringValue).joined(separator: ".")
            if key == "durability" { return "durability must be \"strict\" or \"relaxed\"" }
            return "\"\(key)\" has the wrong type: \(context.debugDescription)"
        case .dataCorrupted(let context):
            let key = context.codingPath.map(\.stringValue).joined(separator: ".")
            if key == "durability" { return "durability must be \"strict\" or \"relaxed\"" }
            return key.isEmpty ? "is not valid JSON" : "\"\(key)\": \(context.debugDescription)"
        case .keyNotFound(let key, _):
            return "\"\(key.stringValue)\" is missing"
        @unknown default:
            return "\(self)"
        }
    }
}

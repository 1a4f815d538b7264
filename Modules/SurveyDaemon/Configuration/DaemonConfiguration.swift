import ControlAPI
public import Entities
public import Logging
public import Networking
public import Storage

/// Everything `surveyd` can be configured with.
///
/// Each setting is declared once, in `DaemonSetting.all` (DaemonConfiguration+Settings.swift):
/// its JSON key, environment variable, flag, type and range, default and one line of
/// documentation. A property here holds its value and takes its default from that declaration.
/// `resolve` reads the settings through swift-configuration from, highest priority first:
/// command-line flags, the environment, an optional JSON file, the defaults.
/// `doc/configuration.md`'s table is rendered from the same declarations.
public struct DaemonConfiguration: Sendable, Hashable {
    /// Base URL of the survey server, e.g. `https://survey.example.org`. Required (except in demo mode).
    public var serverURL: String?
    /// Language used when a session does not name one.
    public var defaultLanguage: Language = DaemonSetting.defaultValue(of: \.defaultLanguage)
    /// The stage (typeId) a session starts at when its start names none.
    public var firstStage: String = DaemonSetting.defaultValue(of: \.firstStage)
    /// Where the journal, queue and definition cache live.
    public var stateDirectory: String
    /// The control socket.
    public var socketPath: String
    /// Group allowed to use the control socket (socket mode 0660); nil keeps it 0600, owner only.
    public var socketGroup: String?
    /// First retry delay of a transient delivery failure, in seconds.
    public var backoffBaseSeconds: Double = DaemonSetting.defaultValue(of: \.backoffBaseSeconds)
    /// Longest retry delay, in seconds.
    public var backoffCapSeconds: Double = DaemonSetting.defaultValue(of: \.backoffCapSeconds)
    /// `strict`: every acknowledged answer is fsync'd first. `relaxed`: acknowledged once written
    /// to the kernel and fsync'd within `Durability.relaxedSyncInterval`; a power loss may lose that last moment.
    public var durability: Durability = DaemonSetting.defaultValue(of: \.durability)
    /// The most the submission queue may hold on disk, in megabytes; nil for no cap. When it is
    /// full, finishing a stage fails with 503 `queue_failed` until deliveries free space.
    public var queueDiskCapMegabytes: Int?
    /// Sessions idle longer than this are closed as `abandoned`, in seconds.
    public var idleSessionTimeoutSeconds: Double = DaemonSetting.defaultValue(of: \.idleSessionTimeoutSeconds)
    /// How long a finished stage waits for its delivery before the outcome is `queued`, in seconds.
    public var deliveryWaitSeconds: Double = DaemonSetting.defaultValue(of: \.deliveryWaitSeconds)
    /// How long answers no longer needed stay on disk before they are erased, in seconds.
    public var erasureDelaySeconds: Double = DaemonSetting.defaultValue(of: \.erasureDelaySeconds)
    /// Uploads in flight at once.
    public var maxInFlight: Int = DaemonSetting.defaultValue(of: \.maxInFlight)
    /// The longest wait between connectivity probes while the server cannot be reached, in seconds.
    public var probeIntervalCapSeconds: Double = DaemonSetting.defaultValue(of: \.probeIntervalCapSeconds)
    /// Uploads in flight when delivery resumes after an outage (0: no ramp, always `maxInFlight`).
    public var rampInitialWindow: Int = DaemonSetting.defaultValue(of: \.rampInitialWindow)
    /// Uploads started per second when delivery resumes after an outage or a 429/503 (0: no pace).
    public var rampInitialRate: Int = DaemonSetting.defaultValue(of: \.rampInitialRate)
    /// This kiosk's id for the survey server; nil: the one kept in the state directory.
    public var deviceID: String?
    /// How long a connectivity verdict is reused, in seconds.
    public var connectivityCacheSeconds: Double = DaemonSetting.defaultValue(of: \.connectivityCacheSeconds)
    /// With a cached copy of a questionnaire, how long starting a session waits for the survey
    /// server's copy before it uses the cached one (the fetch goes on and refreshes the cache),
    /// in seconds. Without a cached copy, the fetch's read timeout (30 s) applies.
    public var definitionFetchDeadlineSeconds: Double = DaemonSetting.defaultValue(of: \.definitionFetchDeadlineSeconds)
    /// How long a control request's head may take from its first byte, and its body from the end
    /// of its head, in seconds.
    public var controlReadTimeoutSeconds: Double = DaemonSetting.defaultValue(of: \.controlReadTimeoutSeconds)
    /// How long a control connection may stay open with no request after its last response, in seconds.
    public var controlIdleTimeoutSeconds: Double = DaemonSetting.defaultValue(of: \.controlIdleTimeoutSeconds)
    /// The most control connections open at once.
    public var maxControlConnections: Int = DaemonSetting.defaultValue(of: \.maxControlConnections)
    /// Largest control request body accepted, in bytes.
    public var maxRequestBytes: Int = DaemonSetting.defaultValue(of: \.maxRequestBytes)
    /// A file holding the survey server's bearer token; read at start and again once after a 401.
    public var tokenFile: String?
    /// The file holding the 32-byte key the journals are encrypted with (doc/security.md); nil
    /// writes them in the clear.
    public var encryptionKeyFile: String?
    /// Files of earlier keys, comma-separated: segments under them stay readable until
    /// compaction rewrites them under `encryptionKeyFile`.
    public var encryptionOldKeyFiles: String?
    /// The TCP address of the respondent's pages (the kiosk), `HOST:PORT`; nil serves none.
    public var kioskListen: String?
    /// Whether `kioskListen` may be an address other machines reach.
    public var kioskAccess: KioskAccess = DaemonSetting.defaultValue(of: \.kioskAccess)
    /// The survey's title on the kiosk's welcome screen, in English and in Korean.
    public var kioskTitleEnglish: String?
    public var kioskTitleKorean: String?
    /// How long a kiosk end screen stays, in seconds.
    public var kioskEndScreenSeconds: Int = DaemonSetting.defaultValue(of: \.kioskEndScreenSeconds)
    /// How long a kiosk question may go untouched before "Are you still there?", in seconds.
    public var kioskIdleSeconds: Int = DaemonSetting.defaultValue(of: \.kioskIdleSeconds)
    /// How long "Are you still there?" counts down, in seconds.
    public var kioskIdleCountdownSeconds: Int = DaemonSetting.defaultValue(of: \.kioskIdleCountdownSeconds)
    /// Which keyboard types into the kiosk's text fields.
    public var kioskKeyboard: KioskKeyboard = DaemonSetting.defaultValue(of: \.kioskKeyboard)

    /// Which keyboard types into the kiosk's text fields.
    public enum KioskKeyboard: String, Sendable, Hashable, CaseIterable {
        /// The pages' own on-screen keyboard (Korean and English), for a bare touch screen.
        case onscreen
        /// None from the pages: the system brings its own (e.g. a tablet's).
        case system
    }

    /// The logo on the kiosk's welcome screen: a PNG or SVG file, read at start and on SIGHUP.
    public var kioskLogoFile: String?
    /// The consent notices a kiosk respondent agrees to before the first question (Korean,
    /// English): plain text or Markdown files, read at start and on SIGHUP; nil: no consent asked.
    public var kioskConsentFileKorean: String?
    public var kioskConsentFileEnglish: String?
    /// The colour of the kiosk's buttons and progress bar, `#rrggbb`; nil keeps the pages' own.
    public var kioskAccentColor: String?
    /// The languages the kiosk's welcome screen offers, comma-separated, the first the default;
    /// nil: `defaultLanguage`, then the other.
    public var kioskLanguages: String?
    /// The file holding the staff PIN's hash (`surveyctl staff-pin set`); nil: the staff screen is off.
    public var kioskStaffPinFile: String?
    /// Whether clients on other machines may use the staff screen, whose PIN and cookie then cross
    /// the network over plain HTTP.
    public var kioskStaffPinOverPlainHTTP: StaffPinOverPlainHTTP = DaemonSetting.defaultValue(of: \.kioskStaffPinOverPlainHTTP)

    /// Whether the staff screen answers clients on other machines over plain HTTP.
    public enum StaffPinOverPlainHTTP: String, Sendable, Hashable, CaseIterable {
        /// Only a browser on this machine (a loopback client) uses the staff screen.
        case refuse
        /// Any client that reaches the pages does: the PIN and the staff cookie cross the network in the clear.
        case allow
    }
    /// The surveys staff may switch the kiosk to: `stage=Title` or `stage=ko:제목|en:Title`, comma-separated.
    public var kioskSurveys: String?
    /// When kiosk respondents may start, e.g. `Mo-Fr 09:00-18:00, Sa 10:00-14:00`; nil: always.
    public var kioskOpenHours: String?
    /// Paradata and quality flags (`doc/data-quality.md`).
    public var quality = QualityConfiguration()
    /// The folder of the welcome screen's attract images (PNG, JPEG, SVG); nil: no attract loop.
    public var kioskAttractFolder: String?
    /// How long the welcome screen stays untouched before its attract loop.
    public var kioskAttractSeconds: Int = DaemonSetting.defaultValue(of: \.kioskAttractSeconds)

    /// Who may reach the kiosk's address.
    public enum KioskAccess: String, Sendable, Hashable, CaseIterable {
        /// Only this machine: a non-loopback `kioskListen` is refused.
        case loopback
        /// Any machine that reaches the address.
        case network
    }
    /// The least severe log lines written; a reload (SIGHUP) applies a new value.
    public var logLevel: Logger.Level = DaemonSetting.defaultValue(of: \.logLevel)
    /// A loopback `HOST:PORT` where `GET /metrics` and `GET /v1/health` are served over TCP too;
    /// nil: only on the control socket.
    public var metricsListen: String?

    /// How long a stop may take (not a setting: the defaults suit systemd's stop timeout). The
    /// services get `graceful` to finish, then `cancellation` once cancelled, after which the
    /// process ends itself (ServiceLifecycle's `fatalError`) and systemd restarts it. A process
    /// that hosts a daemon beside other work (the tests) gives it longer.
    public var shutdownLimits = ShutdownLimits()

    public struct ShutdownLimits: Sendable, Hashable {
        public var graceful: Duration = .seconds(10)
        public var cancellation: Duration = .seconds(5)
        public init(graceful: Duration = .seconds(10), cancellation: Duration = .seconds(5)) {
            self.graceful = graceful
            self.cancellation = cancellation
        }
    }

    /// `metricsListen`, read (the setting's check refused anything else).
    public var metricsAddress: ListenAddress? { metricsListen.flatMap { try? ListenAddress(parsing: $0) } }

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

    /// The longest any seconds setting may be: one week. Every seconds setting's range stays
    /// within it, so that the durations below cannot overflow.
    public static let maxSeconds: Double = 7 * 24 * 3600
    /// The longest retry delay allowed: one day.
    public static let maxBackoffSeconds: Double = 24 * 3600
    /// The largest queue disk cap, in megabytes: 1 TiB.
    public static let maxQueueDiskCapMegabytes = 1 << 20

    /// `idleSessionTimeoutSeconds` as a duration.
    public var idleSessionTimeout: Duration { Self.duration(seconds: idleSessionTimeoutSeconds) }
    /// `deliveryWaitSeconds` as a duration.
    public var deliveryWait: Duration { Self.duration(seconds: deliveryWaitSeconds) }
    /// `erasureDelaySeconds` as a duration.
    public var erasureDelay: Duration { Self.duration(seconds: erasureDelaySeconds) }
    /// `connectivityCacheSeconds` as a duration.
    public var connectivityCache: Duration { Self.duration(seconds: connectivityCacheSeconds) }
    /// `definitionFetchDeadlineSeconds` as a duration.
    public var definitionFetchDeadline: Duration { Self.duration(seconds: definitionFetchDeadlineSeconds) }
    /// The longest `definitionFetchDeadlineSeconds`: the survey client's read timeout, beyond which
    /// the fetch has failed anyway.
    public static let maxDefinitionFetchDeadlineSeconds: Double = 30
    /// The longest control read timeout: one hour.
    public static let maxControlReadTimeoutSeconds: Double = 3600
    /// The longest control idle timeout: one day.
    public static let maxControlIdleTimeoutSeconds: Double = 24 * 3600
    /// The most control connections that may be allowed.
    public static let maxControlConnectionsLimit = 65536
    /// The control connections' timeouts and cap.
    public var controlLimits: ControlConnectionLimits {
        ControlConnectionLimits(
            readTimeout: Self.duration(seconds: controlReadTimeoutSeconds),
            idleTimeout: Self.duration(seconds: controlIdleTimeoutSeconds),
            maxConnections: maxControlConnections)
    }
    /// `backoffBaseSeconds` as a duration.
    public var backoffBase: Duration { Self.duration(seconds: backoffBaseSeconds) }
    /// `backoffCapSeconds` as a duration.
    public var backoffCap: Duration { Self.duration(seconds: backoffCapSeconds) }
    /// When the connectivity watcher probes while the server is unreachable: from 2 s up to
    /// `probeIntervalCapSeconds` with full jitter, or every 2 s without jitter when the cap is 2 s.
    public var probeSchedule: ProbeSchedule {
        let cap = Self.duration(seconds: probeIntervalCapSeconds)
        return cap <= .seconds(2) ? .fixed(.seconds(2)) : ProbeSchedule(base: .seconds(2), cap: cap)
    }

    /// Whole milliseconds; a value `resolve` would refuse (not finite, negative or over
    /// `maxSeconds`) is clamped to 0 ... `maxSeconds` instead of trapping.
    static func duration(seconds: Double) -> Duration {
        let clamped = seconds.isNaN ? 0 : min(max(seconds, 0), maxSeconds)
        return .milliseconds(Int64((clamped * 1000).rounded()))
    }

    /// The defaults for a user and environment, before any file, variable or flag: the declared
    /// defaults, and the state directory and socket from systemd's, XDG's or the home directory.
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
        encryptionKeyFile = Self.credentialKeyFile(environment: environment)
        kioskStaffPinFile = Self.credentialFile(StaffPinFile.credentialName, environment: environment)
    }
}

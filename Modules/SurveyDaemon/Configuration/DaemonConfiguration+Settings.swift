import Entities
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Kiosk
import Logging
import Storage

/// Every setting of `surveyd`, declared once.
///
/// To add one: add a property to `DaemonConfiguration` (its initial value
/// `DaemonSetting.defaultValue(of: \.property)` when it has a default), declare it here, and use
/// it. `SURVEYD_UPDATE_DOC=1 swift test --filter SettingDeclarationTests` then writes its row
/// into `doc/configuration.md`. A setting with a flag also gets an `@Option` and a line in
/// `flags` in `SurveydCommand`; the option's name and help come from here.
extension DaemonSetting {
    static let week = DaemonConfiguration.maxSeconds

    public static let all: [DaemonSetting] = declared + attract + kioskConsent + quality

    static let declared: [DaemonSetting] = [
        DaemonSetting(
            \.serverURL, key: "serverURL", variable: "SURVEYD_SERVER_URL", flag: "server-url",
            kind: .text(valueName: "url", accepts: "an `http://` or `https://` URL with a host", check: checkServerURL),
            none: "required, except with `--demo`; without it surveyd exits 1 at start",
            doc: "the survey server"),
        DaemonSetting(
            \.defaultLanguage, key: "defaultLanguage", variable: "SURVEYD_LANG", flag: "lang",
            kind: .choice(Language.names), default: .ko,
            doc: "language of sessions that name none"),
        DaemonSetting(
            \.firstStage, key: "firstStage", variable: "SURVEYD_FIRST_STAGE", flag: "first-stage",
            kind: .text(valueName: "type-id", accepts: "a stage's typeId: letters, digits, `-` and `_`", check: checkStage), default: "common",
            doc: "the stage a session starts at when its start names none (the kiosk, `POST /v1/sessions` without `typeId`, `surveyctl start` without `--type`)"),
        DaemonSetting(
            \.stateDirectory, key: "stateDirectory", variable: "SURVEYD_STATE_DIR", flag: "state-dir",
            kind: .text(valueName: "dir", accepts: "a directory"),
            computed: "`$STATE_DIRECTORY` (systemd), else `$XDG_STATE_HOME/surveyd`, else `~/.local/state/surveyd`, else `/tmp/surveyd-<uid>/state`",
            doc: "journal, queue and definition cache"),
        DaemonSetting(
            \.socketPath, key: "socketPath", variable: "SURVEYD_SOCKET", flag: "socket",
            kind: .text(valueName: "path", accepts: "a path under 108 bytes", check: checkSocketPath),
            computed: "`$RUNTIME_DIRECTORY/surveyd.sock` (systemd), else `$XDG_RUNTIME_DIR/surveyd.sock`, else `/tmp/surveyd-<uid>/surveyd.sock`",
            doc: "the control socket"),
        DaemonSetting(
            \.socketGroup, key: "socketGroup", variable: "SURVEYD_SOCKET_GROUP", flag: "socket-group",
            kind: .text(valueName: "group", accepts: "a group name or number"),
            none: "socket `0600`",
            doc: "a group whose members may use the control socket (socket `0660`); the daemon's user must be a member"),
        DaemonSetting(
            \.backoffBaseSeconds, key: "backoffBaseSeconds", variable: "SURVEYD_BACKOFF_BASE",
            kind: .seconds(.above(0, atMost: DaemonConfiguration.maxBackoffSeconds, "1 day")), default: 1,
            doc: "first retry delay of a transient delivery failure; at most `backoffCapSeconds`; SIGHUP applies a new value"),
        DaemonSetting(
            \.backoffCapSeconds, key: "backoffCapSeconds", variable: "SURVEYD_BACKOFF_CAP",
            kind: .seconds(.above(0, atMost: DaemonConfiguration.maxBackoffSeconds, "1 day")), default: 300,
            doc: "longest retry delay (delays are drawn uniformly in `0…min(cap, base·2^attempt)`), and the longest server `Retry-After` honoured (a 429/503 also holds the whole queue off for that `Retry-After` plus a random time of up to 12 s, up to 45 s after refusals in a row; see `operations.md`); SIGHUP applies a new value"),
        DaemonSetting(
            \.durability, key: "durability", variable: "SURVEYD_DURABILITY", flag: "durability",
            kind: .choice(DaemonConfiguration.Durability.names), default: .strict,
            doc: "when an answer is acknowledged: after its fdatasync (`strict`) or once written, fdatasync'd within 200 ms (`relaxed`)"),
        DaemonSetting(
            \.queueDiskCapMegabytes, key: "queueDiskCapMegabytes", variable: "SURVEYD_QUEUE_DISK_CAP_MB",
            kind: .wholeNumber(.from(1, to: Double(DaemonConfiguration.maxQueueDiskCapMegabytes), "megabytes"), valueName: "mib"),
            none: "no cap",
            doc: "the most the submission queue's segments may take on disk, in MiB"),
        DaemonSetting(
            \.idleSessionTimeoutSeconds, key: "idleSessionTimeoutSeconds", variable: "SURVEYD_IDLE_TIMEOUT", flag: "idle-timeout",
            kind: .seconds(.above(0, atMost: week, "1 week")), default: 900,
            doc: "sessions idle longer are closed as `abandoned` (their answers are not uploaded); SIGHUP applies a new value"),
        DaemonSetting(
            \.deliveryWaitSeconds, key: "deliveryWaitSeconds", variable: "SURVEYD_DELIVERY_WAIT", flag: "delivery-wait",
            kind: .seconds(.from(0, to: week, "1 week")), default: 2,
            doc: "how long a finished stage waits for its delivery before the outcome is `queued`"),
        DaemonSetting(
            \.erasureDelaySeconds, key: "erasureDelaySeconds", variable: "SURVEYD_ERASURE_DELAY",
            kind: .seconds(.from(0, to: week, "1 week")), default: 600,
            doc: "how long a respondent's answers stay on disk once no longer needed (delivered, dead letter dropped, abandoned, screened out) before they are erased from every file of the state directory; `surveyctl purge` erases them at once (see `operations.md`, Erasure)"),
        DaemonSetting(
            \.maxInFlight, key: "maxInFlight", variable: "SURVEYD_MAX_IN_FLIGHT", flag: "max-in-flight",
            kind: .wholeNumber(.from(1, to: 64)), default: 4,
            doc: "uploads in flight at once"),
        DaemonSetting(
            \.rampInitialWindow, key: "rampInitialWindow", variable: "SURVEYD_RAMP_INITIAL_WINDOW",
            kind: .wholeNumber(.from(0, to: 64)), default: 1,
            doc: "uploads in flight when delivery resumes after an outage, one more per delivery up to `maxInFlight`; a 429/503 closes the window again (`0`: no ramp, always `maxInFlight`)"),
        DaemonSetting(
            \.rampInitialRate, key: "rampInitialRate", variable: "SURVEYD_RAMP_INITIAL_RATE",
            kind: .wholeNumber(.from(0, to: 1000), valueName: "per-second"), default: 1,
            doc: "uploads started per second when delivery resumes after an outage or a 429/503, 10 % faster with each delivery until the window alone limits them; after a 429/503 the pace grows again only once 20 uploads were delivered with no 429/503 between them (`0`: no pace, only the window; without a ramp there is none either)"),
        DaemonSetting(
            \.probeIntervalCapSeconds, key: "probeIntervalCapSeconds", variable: "SURVEYD_PROBE_INTERVAL_CAP",
            kind: .seconds(.from(2, to: DaemonConfiguration.maxBackoffSeconds, "1 day")), default: 240,
            doc: "longest wait between connectivity probes while the server is unreachable (waits are drawn uniformly in `0…min(cap, 2 s·2^failures)`, back to 2 s after a success; `2`: every 2 s, no jitter); the delivery worker, offline, tries again after the larger of this and 30 s"),
        DaemonSetting(
            \.deviceID, key: "deviceId", variable: "SURVEYD_DEVICE_ID", flag: "device-id",
            kind: .text(valueName: "id", accepts: "1 to 64 letters, digits, `-`, `_` or `.`", check: checkDeviceID),
            none: "a random id made once and kept in `device-id` in the state directory",
            doc: "this kiosk's id, sent as `Survey-Device-Id` with every upload and shown by `surveyctl status`"),
        DaemonSetting(
            \.connectivityCacheSeconds, key: "connectivityCacheSeconds", variable: "SURVEYD_CONNECTIVITY_CACHE",
            kind: .seconds(.from(0, to: week, "1 week")), default: 1,
            doc: "how long a connectivity verdict is reused"),
        DaemonSetting(
            \.definitionFetchDeadlineSeconds, key: "definitionFetchDeadlineSeconds", variable: "SURVEYD_DEFINITION_FETCH_DEADLINE",
            flag: "definition-fetch-deadline",
            kind: .seconds(.from(0, to: DaemonConfiguration.maxDefinitionFetchDeadlineSeconds, "the survey server's read timeout")), default: 3,
            doc: "with a cached questionnaire, how long a session start waits for the server's copy before it starts from the cache"),
        DaemonSetting(
            \.controlReadTimeoutSeconds, key: "controlReadTimeoutSeconds", variable: "SURVEYD_CONTROL_READ_TIMEOUT", flag: "control-read-timeout",
            kind: .seconds(.above(0, atMost: DaemonConfiguration.maxControlReadTimeoutSeconds, "1 hour")), default: 10,
            doc: "how long a control request's head may take from its first byte, and its body from the end of its head"),
        DaemonSetting(
            \.controlIdleTimeoutSeconds, key: "controlIdleTimeoutSeconds", variable: "SURVEYD_CONTROL_IDLE_TIMEOUT", flag: "control-idle-timeout",
            kind: .seconds(.above(0, atMost: DaemonConfiguration.maxControlIdleTimeoutSeconds, "1 day")), default: 60,
            doc: "how long a control connection may wait for its next request after a reply"),
        DaemonSetting(
            \.maxControlConnections, key: "maxControlConnections", variable: "SURVEYD_MAX_CONTROL_CONNECTIONS", flag: "max-control-connections",
            kind: .wholeNumber(.from(1, to: Double(DaemonConfiguration.maxControlConnectionsLimit))), default: 256,
            doc: "the most control connections open at once; beyond it, the oldest one without a request in progress is closed"),
        DaemonSetting(
            \.maxRequestBytes, key: "maxRequestBytes", variable: "SURVEYD_MAX_REQUEST_BYTES",
            kind: .wholeNumber(.atLeast(1024), valueName: "bytes"), default: 64 * 1024,
            doc: "largest control request body, in bytes"),
        DaemonSetting(
            \.tokenFile, key: "tokenFile", variable: "SURVEYD_TOKEN_FILE", flag: "token-file",
            kind: .text(valueName: "file", accepts: "a file"),
            none: "no `Authorization` header",
            doc: "a file holding the survey server's bearer token; read again on SIGHUP"),
        DaemonSetting(
            \.encryptionKeyFile, key: "encryptionKeyFile", variable: "SURVEYD_ENCRYPTION_KEY_FILE", flag: "encryption-key-file",
            kind: .text(valueName: "file", accepts: "a file of 32 bytes, raw or base64, readable by its owner only"),
            computed: "`$CREDENTIALS_DIRECTORY/surveyd-key` when systemd passed that credential; otherwise none, and answers are stored in the clear",
            doc: "the key the answers are encrypted with at rest (doc/security.md); read once at start"),
        DaemonSetting(
            \.encryptionOldKeyFiles, key: "encryptionOldKeyFiles", variable: "SURVEYD_ENCRYPTION_OLD_KEY_FILES", flag: "encryption-old-key-files",
            kind: .text(valueName: "files", accepts: "key files separated by commas"),
            none: "no earlier key",
            doc: "earlier keys, to read what they encrypted until compaction rewrites it under `encryptionKeyFile` (key rotation)"),
        DaemonSetting(
            \.kioskListen, key: "kioskListen", variable: "SURVEYD_KIOSK_LISTEN", flag: "kiosk-listen",
            kind: .text(valueName: "host:port", accepts: "`HOST:PORT` with an IPv4 address, a bracketed IPv6 address or `localhost`; port 0 picks a free one", check: checkListenAddress),
            none: "off; with `--demo`, a free loopback port",
            doc: "serve the respondent's pages (the kiosk) on this TCP address"),
        DaemonSetting(
            \.kioskAccess, key: "kioskAccess", variable: "SURVEYD_KIOSK_ACCESS", flag: "kiosk-access",
            kind: .choice(DaemonConfiguration.KioskAccess.names), default: .loopback,
            doc: "`network` allows `kioskListen` to be an address other machines reach (a risk: see doc/kiosk.md); `loopback` refuses it"),
        DaemonSetting(
            \.kioskTitleEnglish, key: "kioskTitleEnglish", variable: "SURVEYD_KIOSK_TITLE_EN", flag: "kiosk-title-en",
            kind: .text(valueName: "title", accepts: "any text", check: checkTitle),
            none: "the Korean title, else \"Survey\"",
            doc: "the survey's title on the kiosk's welcome screen in English"),
        DaemonSetting(
            \.kioskTitleKorean, key: "kioskTitleKorean", variable: "SURVEYD_KIOSK_TITLE_KO", flag: "kiosk-title-ko",
            kind: .text(valueName: "title", accepts: "any text", check: checkTitle),
            none: "the English title, else \"Survey\"",
            doc: "the survey's title on the kiosk's welcome screen in Korean"),
        DaemonSetting(
            \.kioskEndScreenSeconds, key: "kioskEndScreenSeconds", variable: "SURVEYD_KIOSK_END_SCREEN", flag: "kiosk-end-screen",
            kind: .wholeNumber(.from(1, to: 3600, "1 hour"), valueName: "seconds"), default: 10,
            doc: "how long a kiosk end screen stays before the welcome screen returns"),
        DaemonSetting(
            \.kioskIdleSeconds, key: "kioskIdleSeconds", variable: "SURVEYD_KIOSK_IDLE", flag: "kiosk-idle",
            kind: .wholeNumber(.from(5, to: 24 * 3600, "1 day"), valueName: "seconds"), default: 120,
            doc: "how long a kiosk question may go untouched before \"Are you still there?\""),
        DaemonSetting(
            \.kioskIdleCountdownSeconds, key: "kioskIdleCountdownSeconds", variable: "SURVEYD_KIOSK_IDLE_COUNTDOWN", flag: "kiosk-idle-countdown",
            kind: .wholeNumber(.from(1, to: 3600, "1 hour"), valueName: "seconds"), default: 20,
            doc: "how long \"Are you still there?\" counts down before the session is abandoned and the welcome screen returns"),
        DaemonSetting(
            \.kioskKeyboard, key: "kioskKeyboard", variable: "SURVEYD_KIOSK_KEYBOARD", flag: "kiosk-keyboard",
            kind: .choice(DaemonConfiguration.KioskKeyboard.names), default: .onscreen,
            doc: "`onscreen`: the kiosk pages bring their own keyboard (Korean and English) for a touch screen; `system`: none, the system's is used (see doc/kiosk.md)"),
        DaemonSetting(
            \.kioskLogoFile, key: "kioskLogoFile", variable: "SURVEYD_KIOSK_LOGO_FILE", flag: "kiosk-logo-file",
            kind: .text(valueName: "file", accepts: "a PNG or SVG file of at most 512 KiB"),
            none: "no logo",
            doc: "the logo on the kiosk's welcome screen; read at start (exit 78 when it is missing, too large or neither PNG nor SVG) and again on SIGHUP"),
        DaemonSetting(
            \.kioskAccentColor, key: "kioskAccentColor", variable: "SURVEYD_KIOSK_ACCENT_COLOR", flag: "kiosk-accent-color",
            kind: .text(valueName: "#rrggbb", accepts: "`#rrggbb` with a contrast of at least 4.5:1 against white (WCAG AA)", check: checkAccentColor),
            none: "`#0a4a94`",
            doc: "the colour of the kiosk's buttons and progress bar, behind white text; SIGHUP applies a new value"),
        DaemonSetting(
            \.kioskLanguages, key: "kioskLanguages", variable: "SURVEYD_KIOSK_LANGUAGES", flag: "kiosk-languages",
            kind: .text(valueName: "list", accepts: "one or more of `ko`, `en`, comma-separated", check: checkKioskLanguages),
            computed: "`defaultLanguage`, then the other: `ko,en`",
            doc: "the languages the kiosk's welcome screen offers, in order; the first is the one it speaks until the respondent chooses"),
        DaemonSetting(
            \.kioskStaffPinFile, key: "kioskStaffPinFile", variable: "SURVEYD_KIOSK_STAFF_PIN_FILE", flag: "kiosk-staff-pin-file",
            kind: .text(valueName: "file", accepts: "a file written by `surveyctl staff-pin set`, readable by its owner only"),
            computed: "`$CREDENTIALS_DIRECTORY/surveyd-staff-pin` when systemd passed that credential; otherwise none, and the staff screen is off",
            doc: "the staff PIN's salted hash, for the kiosk's staff screen (doc/kiosk.md); read at start (exit 78 when it is missing, open to group or others, or not a PIN file) and on SIGHUP"),
        DaemonSetting(
            \.kioskStaffPinOverPlainHTTP, key: "kioskStaffPinOverPlainHTTP", variable: "SURVEYD_KIOSK_STAFF_PIN_OVER_PLAIN_HTTP", flag: "kiosk-staff-pin-over-plain-http",
            kind: .choice(DaemonConfiguration.StaffPinOverPlainHTTP.names), default: .refuse,
            doc: "`refuse`: the kiosk's staff screen answers only a browser on the kiosk itself (loopback), and other machines get a page saying why; `allow`: it answers any machine that reaches the pages, so the staff PIN and the staff cookie cross the network in the clear and anyone there can lock the staff out with wrong PINs (a risk: see doc/security.md); a new value needs a restart"),
        DaemonSetting(
            \.kioskSurveys, key: "kioskSurveys", variable: "SURVEYD_KIOSK_SURVEYS", flag: "kiosk-surveys",
            kind: .text(valueName: "list", accepts: "`stage=Title` entries separated by commas; a title per language as `stage=ko:제목|en:Title`", check: checkKioskSurveys),
            none: "staff cannot switch the survey; kiosk respondents start `firstStage`",
            doc: "the surveys (first stages) staff may switch the kiosk to on its staff screen; the first is the kiosk's default; SIGHUP applies a new list (a choice still listed is kept)"),
        DaemonSetting(
            \.kioskOpenHours, key: "kioskOpenHours", variable: "SURVEYD_KIOSK_OPEN_HOURS", flag: "kiosk-open-hours",
            kind: .text(valueName: "hours", accepts: "days and times in the machine's time zone, e.g. `Mo-Fr 09:00-18:00, Sa 10:00-14:00`", check: checkOpenHours),
            none: "always open",
            doc: "when kiosk respondents may start; outside these hours the kiosk shows \"closed\" (staff can still enter); follows the wall clock; a new value needs a restart"),
        DaemonSetting(
            \.logLevel, key: "logLevel", variable: "SURVEYD_LOG_LEVEL", flag: "log-level",
            kind: .choice(Logger.Level.names), default: .info,
            doc: "the least severe log lines written (to stderr; under systemd, to the journal); SIGHUP applies a new value"),
        DaemonSetting(
            \.metricsListen, key: "metricsListen", variable: "SURVEYD_METRICS_LISTEN", flag: "metrics-listen",
            kind: .text(valueName: "host:port", accepts: "a loopback `HOST:PORT`: `127.0.0.1:9464`, `[::1]:9464`, `localhost:9464` (port 0: any free port)", check: checkMetricsListen),
            none: "metrics and health only on the control socket",
            doc: "also serve `GET /metrics` and `GET /v1/health` (nothing else) over TCP at this loopback address"),
    ]

    static func checkListenAddress(_ text: String) -> String? {
        do {
            _ = try ListenAddress(parsing: text)
            return nil
        } catch {
            return error.message
        }
    }

    static func checkStage(_ text: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        guard !text.isEmpty, text.count <= 64, text.allSatisfy(allowed.contains) else {
            return "\"\(text.prefix(80))\" is not a stage's typeId; use 1 to 64 letters, digits, - or _ (e.g. common)"
        }
        return nil
    }

    static func checkAccentColor(_ text: String) -> String? {
        do {
            _ = try KioskAccentColor(text)
            return nil
        } catch {
            return error.message
        }
    }

    static func checkKioskLanguages(_ text: String) -> String? {
        do {
            _ = try KioskLanguage.list(text)
            return nil
        } catch {
            return error.message
        }
    }

    static func checkTitle(_ text: String) -> String? {
        if text.count > 200 { return "the title is \(text.count) characters; give at most 200" }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "the title contains a control character; give one line of text" }
        return nil
    }

    static func checkServerURL(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            return "\"\(text)\" is not an http or https URL with a host, e.g. https://survey.example.org"
        }
        return nil
    }

    static func checkMetricsListen(_ text: String) -> String? {
        let address: ListenAddress
        do {
            address = try ListenAddress(parsing: text)
        } catch {
            return error.message
        }
        guard address.isLoopback else {
            return "\"\(text)\" is not a loopback address: metrics are served only on 127.0.0.1 (127.0.0.0/8), ::1 or localhost; to scrape from another host, put a proxy on this one in front of it"
        }
        return nil
    }

    static func checkDeviceID(_ text: String) -> String? {
        DeviceIdentity.isValid(text) ? nil : "\"\(text.prefix(80))\" is not a device id; use 1 to 64 letters, digits, -, _ or ."
    }

    static func checkSocketPath(_ path: String) -> String? {
        // sun_path holds 108 bytes including the terminating NUL.
        guard path.utf8.count < 108 else {
            return "\"\(path)\" is \(path.utf8.count) bytes; a Unix socket path must be under 108 bytes, choose a shorter one"
        }
        return nil
    }
}

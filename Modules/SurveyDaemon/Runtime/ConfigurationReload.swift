import Kiosk
import Logging
import Networking

/// What a reload of the configuration (SIGHUP) changes: the settings applied at once, and those
/// whose new value waits for a restart.
struct ConfigurationChanges: Sendable, Equatable {
    /// Keys of the settings applied at once, e.g. `logLevel`.
    var applied: [String] = []
    /// Keys of the settings that changed but take effect only after a restart.
    var needRestart: [String] = []

    /// The settings a running daemon applies: the log level, the delivery backoff, the idle
    /// session timeout and the kiosk's brand. (The token file, the kiosk's logo file and its
    /// consent notices are read again on every reload, whatever changed.)
    static let reloadable: Set<String> = [
        "logLevel", "backoffBaseSeconds", "backoffCapSeconds", "idleSessionTimeoutSeconds", "kioskLogoFile", "kioskAccentColor", "kioskStaffPinFile", "kioskSurveys",
        "kioskAttractFolder", "kioskConsentFileKorean", "kioskConsentFileEnglish",
    ]

    /// The settings whose values differ, in the order `DaemonSetting.all` declares them.
    static func between(_ old: DaemonConfiguration, _ new: DaemonConfiguration) -> ConfigurationChanges {
        var changes = ConfigurationChanges()
        for setting in DaemonSetting.all where setting.get(old) != setting.get(new) {
            if reloadable.contains(setting.key) {
                changes.applied.append(setting.key)
            } else {
                changes.needRestart.append(setting.key)
            }
        }
        return changes
    }
}

/// Reads the configuration again on request (SIGHUP) from the same file, environment and flags
/// as at start, and applies what can change while the daemon runs: the log level, the delivery
/// backoff, the idle session timeout, the kiosk's logo (read again) and accent colour; the survey
/// client reads the token file again at its next request. A logo that cannot be used is logged and
/// the pages keep the one they show. A changed setting that needs a restart is named in the log and keeps its value. A
/// configuration that does not resolve is logged and changes nothing.
actor ConfigurationReloader {
    private(set) var current: DaemonConfiguration
    let resolve: @Sendable () async throws(ConfigurationError) -> DaemonConfiguration
    let daemon: Daemon
    let logLevel: DaemonLogLevel
    let logger: Logger

    init(current: DaemonConfiguration, daemon: Daemon, logLevel: DaemonLogLevel, logger: Logger, resolve: @escaping @Sendable () async throws(ConfigurationError) -> DaemonConfiguration) {
        self.current = current
        self.daemon = daemon
        self.logLevel = logLevel
        self.logger = logger
        self.resolve = resolve
    }

    /// Reloads; returns the changes, or nil when the configuration did not resolve.
    @discardableResult
    func reload() async -> ConfigurationChanges? {
        let new: DaemonConfiguration
        do {
            new = try await resolve()
        } catch {
            logger.error("configuration not reloaded: \(error); the daemon keeps its current settings")
            return nil
        }
        let changes = ConfigurationChanges.between(current, new)
        var applied = current
        for key in changes.applied {
            guard let setting = DaemonSetting.named(key), let value = setting.get(new) else { continue }
            setting.set(&applied, value)
        }
        if let kiosk = daemon.kiosk {
            reloadBrand(of: kiosk, from: new, applied: &applied)
        }
        if let desk = daemon.backend.staffDesk {
            await reloadStaff(desk, from: new, applied: &applied)
        }
        // The welcome screens look again at what they show (brand, attract images, staff PIN).
        daemon.backend.staffDesk?.changes.signal()
        logLevel.level = applied.logLevel
        await daemon.worker.apply(backoff: RetryPolicy(base: applied.backoffBase, cap: applied.backoffCap).backoff, maxRetryAfter: applied.backoffCap)
        await daemon.sessions.apply(idleTimeout: applied.idleSessionTimeout)
        daemon.housekeepingWakeup.wake()
        await daemon.surveyClient.reloadToken()
        await daemon.worker.resume(because: "the configuration and the token were read again (SIGHUP)")
        current = applied
        logger.notice("configuration reloaded", metadata: [
            "applied": "\(changes.applied.isEmpty ? "nothing changed" : changes.applied.joined(separator: ", "))",
            "token": "read again at the next request",
        ])
        if !changes.needRestart.isEmpty {
            logger.warning("configuration changes that take effect only after a restart (systemctl restart surveyd): \(changes.needRestart.joined(separator: ", "))")
        }
        return changes
    }
}

extension ConfigurationReloader {
    /// Reads the logo file and the attract folder again and applies the accent colour; a logo or
    /// attract images that cannot be used keep those shown (and their setting's old value), with
    /// the refusal in the log.
    func reloadBrand(of kiosk: KioskServer, from new: DaemonConfiguration, applied: inout DaemonConfiguration) {
        var brand = kiosk.brand.brand
        do {
            brand.logo = try KioskBrandFiles.logo(from: new)
        } catch {
            applied.kioskLogoFile = current.kioskLogoFile
            logger.error("kiosk logo not reloaded: \(error.detail); the pages keep the logo they show")
        }
        do {
            brand.attract = try KioskAttractFiles.images(from: new)
        } catch {
            applied.kioskAttractFolder = current.kioskAttractFolder
            logger.error("kiosk attract images not reloaded: \(error.detail); the welcome screen keeps the images it shows")
        }
        // The setting's check accepted the colour when the configuration resolved.
        brand.accent = try? KioskBrandFiles.accent(from: new)
        do {
            brand.consent = try KioskBrandFiles.consent(from: new)
        } catch {
            applied.kioskConsentFileKorean = current.kioskConsentFileKorean
            applied.kioskConsentFileEnglish = current.kioskConsentFileEnglish
            logger.error("kiosk consent notices not reloaded: \(error.detail); the pages keep the notices they show")
        }
        if brand != kiosk.brand.brand {
            kiosk.brand.replace(with: brand)
            let versions = brand.consent.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value.version)" }.joined(separator: ", ")
            logger.notice("kiosk brand replaced", metadata: ["logo": "\(brand.logo.map { "\($0.format.rawValue), \($0.bytes.count) bytes" } ?? "none")", "accent": "\(brand.accent?.hex ?? "the pages' own")", "attractImages": "\(brand.attract.count)", "consent": "\(versions.isEmpty ? "none" : versions)"])
        }
    }
}

extension DeliveryWorker {
    /// Uses `backoff` for the retries scheduled from now on, and honours a server's `Retry-After`
    /// up to `maxRetryAfter` in the ramp's hold-off from the next refusal on.
    func apply(backoff: @escaping @Sendable (_ attempt: Int, _ retryAfter: Duration?) -> Duration, maxRetryAfter: Duration) {
        settings.backoff = backoff
        ramp.maxRetryAfter = maxRetryAfter
    }
}

extension SessionManager {
    /// Closes sessions idle longer than `idleTimeout` from now on (housekeeping is woken to look again).
    func apply(idleTimeout: Duration) {
        settings.idleTimeout = idleTimeout
    }
}

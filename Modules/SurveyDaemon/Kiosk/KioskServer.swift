import Entities

import Hummingbird
import Kiosk
import Logging
import NIOCore
import ServiceLifecycle

/// The respondent's pages as a service of the daemon: the kiosk's Hummingbird application over
/// the session manager, on the configured TCP address.
struct KioskServer {
    let address: ListenAddress
    let settings: KioskSettings
    /// The logo and accent colour; a reload of the configuration replaces them.
    let brand: KioskBrandStore
    let sessions: SessionManager
    /// Out of service, the survey chosen and the staff screen's PIN.
    let staff: KioskStaffDesk?
    /// The control API's backend, for the staff screen's glance and Send now.
    var control: DaemonBackend?
    let logger: Logger

    /// The settings of the pages from the daemon's configuration, checked.
    static func settings(from configuration: DaemonConfiguration) -> KioskSettings {
        var titles: [KioskLanguage: String] = [:]
        titles[.en] = configuration.kioskTitleEnglish
        titles[.ko] = configuration.kioskTitleKorean
        // The setting's check accepted the list: it is one or more languages.
        let first = KioskLanguage(rawValue: configuration.defaultLanguage.rawValue) ?? .ko
        let languages = configuration.kioskLanguages.flatMap { try? KioskLanguage.list($0) }
            ?? [first] + KioskLanguage.allCases.filter { $0 != first }
        var settings = KioskSettings(
            titles: titles,
            defaultLanguage: languages.first ?? .ko,
            endScreenSeconds: configuration.kioskEndScreenSeconds,
            idleSeconds: configuration.kioskIdleSeconds,
            idleCountdownSeconds: configuration.kioskIdleCountdownSeconds,
            keyboard: KioskKeyboard(rawValue: configuration.kioskKeyboard.rawValue) ?? .onscreen,
            languages: languages,
            staffAccess: staffAccess(configuration))
        settings.attractSeconds = configuration.kioskAttractSeconds
        return settings
    }

    /// Who may use the staff screen: a browser on this machine, unless the operator allowed the
    /// PIN over plain HTTP. (With `kioskAccess` `loopback` every client is on this machine.)
    static func staffAccess(_ configuration: DaemonConfiguration) -> KioskStaffAccess {
        configuration.kioskStaffPinOverPlainHTTP == .allow ? .anyClient : .loopbackOnly
    }

    /// The application, as a service; `onRunning` gets the URL the pages answer on (with the
    /// port the system chose for port 0).
    func service(onRunning: @escaping @Sendable (String) async -> Void) throws -> some Service {
        let address = address
        let logger = logger
        let staffBackend: (any KioskStaffBackend)? = staff.flatMap { desk in
            control.map { DaemonStaffBackend(desk: desk, control: $0, languages: settings.languages, stateDirectory: desk.directory) }
        }
        let router = try KioskApplication.router(
            backend: SessionKioskBackend(sessions: sessions, staff: staff), settings: settings, brand: brand, staff: staffBackend,
            changes: staff?.changes ?? KioskChanges(), logger: logger)
        // Hummingbird's `Application` would format the `Date` header every second, idle or not.
        return TimerFreeApplication(
            router: router, server: .loopBoundHTTP1(), configuration: .init(address: .hostname(address.host, port: address.port), serverName: nil),
            logger: logger
        ) { channel in
            var bound = address
            if let port = channel.localAddress?.port { bound.port = port }
            let url = "http://\(bound)/"
            logger.info("kiosk pages listening", metadata: ["url": "\(url)"])
            await onRunning(url)
        }
    }
}

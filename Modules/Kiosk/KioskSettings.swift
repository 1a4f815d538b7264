/// How the kiosk pages behave. The daemon fills it from its configuration.
public struct KioskSettings: Sendable, Hashable {
    /// The survey's title on the welcome screen, per language. A language without a title
    /// shows the other language's, then "Survey".
    public var titles: [KioskLanguage: String]
    /// The language the welcome screen speaks until the respondent chooses.
    public var defaultLanguage: KioskLanguage
    /// The languages the welcome screen offers, in order; `defaultLanguage` must be one of them.
    public var languages: [KioskLanguage]
    /// How long an end screen stays before the welcome screen returns.
    public var endScreenSeconds: Int
    /// How long a question may stay without any touch or key before "Are you still there?".
    public var idleSeconds: Int
    /// How long "Are you still there?" counts down before the session is abandoned.
    public var idleCountdownSeconds: Int
    /// Marks the browser cookie `Secure` (set it when the pages are served over HTTPS, e.g.
    /// behind a TLS proxy; a `Secure` cookie is not sent over plain HTTP except to localhost).
    public var secureCookie: Bool
    /// How many browsers the kiosk keeps track of at once; past that the least recently seen
    /// browser without a session is forgotten first.
    public var maxBrowsers: Int
    /// How long a browser without a session (showing the welcome or an end screen) stays known.
    public var browserLifetimeSeconds: Int
    /// The largest form body accepted, in bytes.
    public var maxFormBytes: Int
    /// Which keyboard types into the text fields: the pages' own, or the system's.
    public var keyboard: KioskKeyboard
    /// Which clients may use the staff screen; by default only those on this machine.
    public var staffAccess: KioskStaffAccess
    /// How long the welcome screen's held request (`GET /state?shown=…`) waits at most for a
    /// change before it answers anyway: shorter than a browser's or a proxy's patience with a
    /// silent response (Firefox's 300 s, a proxy's read timeout).
    public var stateHoldSeconds = 240
    /// How long the welcome screen stays untouched before its attract loop (with attract images).
    public var attractSeconds = 60

    public init(
        titles: [KioskLanguage: String] = [:],
        defaultLanguage: KioskLanguage = .ko,
        endScreenSeconds: Int = 10,
        idleSeconds: Int = 120,
        idleCountdownSeconds: Int = 20,
        secureCookie: Bool = false,
        maxBrowsers: Int = 1024,
        browserLifetimeSeconds: Int = 12 * 3600,
        maxFormBytes: Int = 16 * 1024,
        keyboard: KioskKeyboard = .onscreen,
        languages: [KioskLanguage] = KioskLanguage.allCases,
        staffAccess: KioskStaffAccess = .loopbackOnly
    ) {
        self.staffAccess = staffAccess
        self.languages = languages
        self.titles = titles
        self.defaultLanguage = defaultLanguage
        self.endScreenSeconds = endScreenSeconds
        self.idleSeconds = idleSeconds
        self.idleCountdownSeconds = idleCountdownSeconds
        self.secureCookie = secureCookie
        self.maxBrowsers = maxBrowsers
        self.browserLifetimeSeconds = browserLifetimeSeconds
        self.maxFormBytes = maxFormBytes
        self.keyboard = keyboard
    }

    /// The title shown for `language`.
    public func title(for language: KioskLanguage) -> String {
        if let title = titles[language], !title.isEmpty { return title }
        if let other = KioskLanguage.allCases.lazy.compactMap({ self.titles[$0] }).first(where: { !$0.isEmpty }) { return other }
        return "Survey"
    }

    /// How long a session may go without a request before the kiosk abandons it itself: the
    /// idle time and the countdown, plus a few seconds for the page's own reset to arrive first.
    public var sessionExpirySeconds: Int { idleSeconds + idleCountdownSeconds + 5 }

    /// Checks the values, naming the first one out of range.
    public func check() throws(KioskSettingsError) {
        let day = 24 * 3600
        let ranges: [(String, Int, ClosedRange<Int>)] = [
            ("endScreenSeconds", endScreenSeconds, 1...3600),
            ("idleSeconds", idleSeconds, 5...day),
            ("idleCountdownSeconds", idleCountdownSeconds, 1...3600),
            ("maxBrowsers", maxBrowsers, 1...1_000_000),
            ("browserLifetimeSeconds", browserLifetimeSeconds, 60...(7 * day)),
            ("maxFormBytes", maxFormBytes, 1024...(1 << 20)),
            ("stateHoldSeconds", stateHoldSeconds, 1...3600),
            ("attractSeconds", attractSeconds, 5...day),
        ]
        for (name, value, range) in ranges where !range.contains(value) {
            throw KioskSettingsError(setting: name, message: "\(name) must be from \(range.lowerBound) to \(range.upperBound), got \(value)")
        }
        _ = try KioskLanguage.list(languages.map(\.rawValue).joined(separator: ","))
        guard languages.contains(defaultLanguage) else {
            throw KioskSettingsError(setting: "languages", message: "the default language \(defaultLanguage.rawValue) is not one of the languages offered (\(languages.map(\.rawValue).joined(separator: ",")))")
        }
    }
}

/// Which keyboard types into the pages' text fields.
public enum KioskKeyboard: String, Sendable, Hashable, CaseIterable {
    /// The pages' own keyboard, docked at the bottom while a text field has the focus: a touch
    /// screen under cage and Chromium has no other.
    case onscreen
    /// None from the pages: the system brings its own (e.g. a tablet's).
    case system
}

/// A kiosk setting out of range.
public struct KioskSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    public static let code = "bad_kiosk_setting"
    public var setting: String
    public var message: String
    public var description: String { message }
}

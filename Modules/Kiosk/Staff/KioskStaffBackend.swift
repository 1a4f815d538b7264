#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What the staff screen and the welcome screen need from the daemon: whether sessions may
/// start, the PIN check with its lockout, the glance, and the staff's actions. The daemon
/// implements it over its staff desk and status; without one the staff screen is off.
public protocol KioskStaffBackend: Sendable {
    /// Whether a staff PIN is configured: without one the way in does nothing.
    func staffScreenEnabled() async -> Bool
    /// Whether a kiosk session may start now, and the survey it starts.
    func availability() async -> KioskAvailability
    /// Checks a PIN (slow on purpose), counting a wrong one towards the lockout.
    func verify(pin: String) async -> StaffPinVerdict
    /// What the staff screen shows; never a respondent's answers, ids or e-mail.
    func glance() async -> StaffGlance
    /// Sends what waits now (`surveyctl flush`).
    func sendNow() async -> StaffSendResult
    /// Takes the kiosk out of service (with an optional message) or back in service.
    func setOutOfService(_ outOfService: Bool, message: String?) async throws(KioskStaffError)
    /// Makes `stage` the survey the next kiosk respondent starts.
    func chooseSurvey(_ stage: String) async throws(KioskStaffError)
    /// Staff entered (the right PIN) or left the staff screen, for the log and `/v1/events`.
    func staffSession(entered: Bool) async
    /// When ``availability()`` changes by itself next (a boundary of the opening hours, on the
    /// wall clock); nil: never.
    func nextAvailabilityChange() async -> Date?
}

extension KioskStaffBackend {
    /// Never, by default: the availability changes only when someone changes it.
    public func nextAvailabilityChange() async -> Date? { nil }
}

/// Whether a respondent may start now.
public enum KioskAvailability: Sendable, Hashable {
    /// In service: sessions start at this survey.
    case open(survey: KioskSurveyChoice?)
    /// Taken out of service by staff or the operator, with an optional message.
    case outOfService(message: String?)
    /// Outside `kioskOpenHours`.
    case closed

    /// A short stable text that changes whenever the welcome screen must change.
    public var fingerprint: String {
        switch self {
        case .open(let survey): "open:" + (survey?.stage ?? "")
        case .outOfService(let message): "out:" + (message ?? "")
        case .closed: "closed"
        }
    }
}

/// What a PIN typed on the staff screen came to.
public enum StaffPinVerdict: Sendable, Hashable {
    case accepted
    /// Wrong; this many more wrong ones lock the way in.
    case wrong(attemptsLeft: Int)
    /// Locked after wrong PINs for this many more seconds (the PIN was not checked).
    case locked(seconds: Int)
    /// Another PIN is being checked: try again.
    case busy
    /// No staff PIN is configured.
    case off
}

/// A survey staff may switch to: its first stage and its title per language.
public struct KioskSurveyChoice: Sendable, Hashable {
    public var stage: String
    public var titles: [KioskLanguage: String]
    public init(stage: String, titles: [KioskLanguage: String]) {
        self.stage = stage
        self.titles = titles
    }
    /// The title in `language`, else another's, else the stage.
    public func title(for language: KioskLanguage) -> String {
        titles[language] ?? KioskLanguage.allCases.lazy.compactMap { self.titles[$0] }.first ?? stage
    }
}

/// The result of Send now, in facts the page words.
public struct StaffSendResult: Sendable, Hashable {
    /// Submissions sent by this flush.
    public var sent: Int
    /// Still waiting after it.
    public var waiting: Int
    /// The connectivity state after it (`online`, `offline`, `unknown`, `portal`, …).
    public var connectivity: String
    /// Why what is left waits, in the daemon's words (`queue.waiting.reason`, a pause, a hold-off).
    public var reason: String?
    public init(sent: Int, waiting: Int, connectivity: String, reason: String? = nil) {
        self.sent = sent
        self.waiting = waiting
        self.connectivity = connectivity
        self.reason = reason
    }
}

/// A staff action refused, with why in plain words.
public struct KioskStaffError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why, stably named.
    public enum Code: String, Sendable, Hashable {
        /// The action does not fit (a message too long, a survey not listed).
        case refused
        /// The kiosk's state could not be written to the state directory (a full disk): the
        /// action was not taken, since it would not survive a restart.
        case notKept = "not_kept"
    }

    public var code: Code
    public var message: String
    public init(_ message: String, code: Code = .refused) {
        self.message = message
        self.code = code
    }
    public var description: String { message }
}

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Entities

/// What the staff screen shows at a glance, as facts (the pages put them in words): the same
/// state `surveyctl status` prints, without anything of a respondent.
public struct StaffGlance: Sendable, Hashable {
    /// Surveys (finished stages) waiting to be sent, and when the oldest was queued.
    public var waiting: Int
    public var oldestWaitingSince: Date?
    /// The last successful send.
    public var lastSentAt: Date?
    /// Why sending waits, in the daemon's words (`queue.waiting.reason`), when it waits.
    public var waitingReason: String?
    /// Set while the survey server asked to wait, until then.
    public var holdOffUntil: Date?
    /// Set while delivery is paused because the server refused the token.
    public var tokenRefused: Bool
    /// `online`, `offline`, `unknown`, `portal` or any later state.
    public var connectivity: String
    public var deadLetters: Int
    /// Surveys started, completed, screened out and abandoned since local midnight; nil when not counted.
    public var today: Today?
    /// The survey in use and the ones staff may switch to.
    public var survey: KioskSurveyChoice?
    public var surveys: [KioskSurveyChoice]
    /// The pages' languages.
    public var languages: [KioskLanguage]
    /// Out of service (and its message), or closed.
    public var availability: KioskAvailability
    /// Bytes free for answers in the state directory; nil when unknown.
    public var diskFreeBytes: Int?
    public var encrypted: Bool?
    public var version: String
    public var deviceId: String?
    public var uptimeSeconds: Double
    /// Problems the operator must fix, each with what to do (journal failures, dead letters, …).
    public var problems: [String]

    public typealias Today = KioskTodayCounts

    public init(
        waiting: Int = 0, oldestWaitingSince: Date? = nil, lastSentAt: Date? = nil, waitingReason: String? = nil, holdOffUntil: Date? = nil,
        tokenRefused: Bool = false, connectivity: String = "unknown", deadLetters: Int = 0, today: Today? = nil, survey: KioskSurveyChoice? = nil,
        surveys: [KioskSurveyChoice] = [], languages: [KioskLanguage] = KioskLanguage.allCases, availability: KioskAvailability = .open(survey: nil),
        diskFreeBytes: Int? = nil, encrypted: Bool? = nil, version: String = "", deviceId: String? = nil, uptimeSeconds: Double = 0, problems: [String] = []
    ) {
        self.waiting = waiting
        self.oldestWaitingSince = oldestWaitingSince
        self.lastSentAt = lastSentAt
        self.waitingReason = waitingReason
        self.holdOffUntil = holdOffUntil
        self.tokenRefused = tokenRefused
        self.connectivity = connectivity
        self.deadLetters = deadLetters
        self.today = today
        self.survey = survey
        self.surveys = surveys
        self.languages = languages
        self.availability = availability
        self.diskFreeBytes = diskFreeBytes
        self.encrypted = encrypted
        self.version = version
        self.deviceId = deviceId
        self.uptimeSeconds = uptimeSeconds
        self.problems = problems
    }
}

/// A kiosk's counts since local midnight, as its staff screen and `surveyctl status` show them:
/// counts only, nothing of a respondent. Sessions started, completed, screened out and
/// abandoned; completed stages that raised quality flags (`flagged`) and how many raised each
/// flag (`flags`, by flag name); respondents who declined the consent notice.
public struct KioskTodayCounts: Sendable, Hashable, Codable {
    public var started: Int
    public var completed: Int
    public var screenedOut: Int
    public var abandoned: Int
    public var flagged: Int
    public var flags: [String: Int]
    public var declined: Int

    public init(started: Int = 0, completed: Int = 0, screenedOut: Int = 0, abandoned: Int = 0, flagged: Int = 0, flags: [String: Int] = [:], declined: Int = 0) {
        self.started = started
        self.completed = completed
        self.screenedOut = screenedOut
        self.abandoned = abandoned
        self.flagged = flagged
        self.flags = flags
        self.declined = declined
    }

    private enum CodingKeys: String, CodingKey {
        case started, completed, screenedOut, abandoned, flagged, flags, declined
    }

    /// The flag and consent counts may be missing (a daemon older than them): zero.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            started: try c.decode(Int.self, forKey: .started), completed: try c.decode(Int.self, forKey: .completed),
            screenedOut: try c.decode(Int.self, forKey: .screenedOut), abandoned: try c.decode(Int.self, forKey: .abandoned),
            flagged: try c.decodeIfPresent(Int.self, forKey: .flagged) ?? 0, flags: try c.decodeIfPresent([String: Int].self, forKey: .flags) ?? [:],
            declined: try c.decodeIfPresent(Int.self, forKey: .declined) ?? 0)
    }
}

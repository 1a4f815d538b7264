// What must hold of the kiosk, whatever the walk did to it: the respondents and what each gave,
// as the daemon acknowledged it. The walk updates the model only from the daemon's own
// acknowledgements (an answer accepted, a stage queued), never from what it expects.

/// One respondent of a walk.
public struct WalkRespondent: Sendable, Hashable {
    /// The daemon's session id.
    public var session: String
    /// Their name, unique in the walk: how the server's record is matched to them.
    public var name: String
    /// The answers the daemon acknowledged, in order (values as typed).
    public var answers: [String] = []
    /// The answers they will give, in order.
    public var planned: [String]
    /// Whether the stage is finished and queued: then exactly one delivery is owed.
    public var queued = false
    /// Screened out (age under 19): nothing is uploaded.
    public var screenedOut = false
    /// Every record of theirs may have been set aside by a step that attacked the state
    /// directory: they may be gone (never delivered, not open), but never delivered twice.
    public var forfeit = false
    /// At least one of their records was written while the journals were in the clear.
    public var touchedInTheClear = false

    public var isOpen: Bool { !queued && !screenedOut }
}

/// The model a walk is checked against.
public struct WalkModel: Sendable {
    public var respondents: [WalkRespondent] = []
    /// Key files: the current one last; empty while encryption is off.
    public var keys: [String] = []
    /// The token the daemon's token file holds, and the one the server wants.
    public var fileToken = "walk-token-0"
    public var serverToken = "walk-token-0"
    /// Whether the survey server process runs, and the faults it has (JSON members, without braces).
    public var serverUp = true
    public var faults = ""
    /// The wall clock's offset from the real one, in seconds.
    public var clockOffset = 0
    /// Whether a foreign segment was copied in: `.unlisted` files are expected from then on.
    public var attacked = false
    /// The foreign respondent's session id, once the walk made one.
    public var foreignSession: String?
    /// Counts of tokens made, for new token values.
    var tokens = 0
    /// Whether the token ever changed: from then on the server may have refused the token the
    /// daemon held, and a pause for the operator is right.
    public var tokenChanged = false
    /// Whether the state directory's file system is full: answers may be refused (never
    /// acknowledged and then lost).
    public var diskFull = false
    /// Whether the daemon is down because it could not start on a full disk (it says why and
    /// exits; it must start once space is freed).
    public var daemonDown = false
    /// Whether the kiosk is out of service: no kiosk respondent may start.
    public var outOfService = false
    /// Whether a session ever started: from then on the questionnaire is cached.
    public var cached = false

    public var encrypted: Bool { !keys.isEmpty }
    public var open: [WalkRespondent] { respondents.filter(\.isOpen) }
    /// Deliveries owed: a queued respondent's stage, once each.
    public var owed: [WalkRespondent] { respondents.filter(\.queued) }

    /// The answers the common stage takes from the walk's respondent `number`: a name unique in
    /// the walk, an e-mail address twice, the age (under 19 is screened out) and the liking.
    static func answers(number: Int, age: Int, like: Int) -> [String] {
        let email = "walker\(number).mail@example.org"
        return ["Walker \(number)", email, email, String(age), String(like)]
    }
}

// One step of a lifecycle walk: what happens to the kiosk between two checks. A walk's steps are
// drawn from its seed alone, before it runs, so that the same seed walks the same steps again; a
// step whose precondition does not hold when its turn comes (rotating a key while encryption is
// off) is skipped, which the same seed also does again.

import SurveyTesting

/// A step of a walk, with every random choice it needs drawn already.
public enum WalkStep: Sendable, Hashable, CustomStringConvertible {
    /// A new respondent answers `answers` questions (1 to 5; 5 finishes the stage) over the control API.
    case respondent(answers: Int, age: Int, like: Int)
    /// A new respondent answers `answers` questions at the kiosk pages (a browser without script).
    case kioskRespondent(answers: Int, age: Int, like: Int)
    /// An open respondent (the `pick`-th, modulo how many are open) answers `answers` more.
    case resume(pick: Int, answers: Int)
    /// kill -9 and start again.
    case kill
    /// A power cut: kill -9, then a torn frame (`bytes` random bytes) after the last record of
    /// each journal's newest segment (what a cut in the middle of a write leaves, in strict
    /// durability where nothing acknowledged waits for its fdatasync), and start again.
    case powerCut(bytes: Int)
    /// SIGTERM, wait for the exit, start again.
    case cleanRestart
    /// Encryption turned on (a new key), after a kill -9 or a clean stop.
    case encryptionOn(unclean: Bool)
    /// A new key, the current one kept as an old key, after a kill -9 or a clean stop.
    case rotateKey(unclean: Bool)
    /// The server's token changes: the token file first, or the server first.
    case tokenChange(fileFirst: Bool)
    /// The survey server stops answering (its process stops).
    case serverDown
    /// The survey server answers again, without faults.
    case serverUp
    /// The server answers some requests with 500, 503 or a garbled 200.
    case serverFaulty(kind: Int)
    /// Something answers in the server's place (a captive portal of the given kind).
    case portal(kind: String)
    /// The wall clock steps by `seconds` (±1 day).
    case clockStep(seconds: Int)
    /// The operator takes the kiosk out of service (`POST /v1/kiosk/out-of-service`), or puts it back.
    case outOfService
    case inService
    /// The file system of the state directory fills up (a tmpfs of its own, filled to ENOSPC by
    /// another file).
    case diskFull
    /// That file is removed again.
    case diskFreed
    /// Someone with write access to the state directory but not the key removes both journals'
    /// lists of plain segments and copies another kiosk's plain sessions segment in, named to
    /// sort first; the daemon is started again.
    case injectForeignSegment

    public var description: String {
        switch self {
        case .respondent(let answers, let age, let like): "respondent answers \(answers) (age \(age), like \(like))"
        case .kioskRespondent(let answers, let age, let like): "respondent at the kiosk pages answers \(answers) (age \(age), like \(like))"
        case .resume(let pick, let answers): "open respondent #\(pick) answers \(answers) more"
        case .kill: "kill -9, start"
        case .powerCut(let bytes): "power cut (torn frame of \(bytes) bytes), start"
        case .cleanRestart: "clean stop, start"
        case .encryptionOn(let unclean): "encryption turned on after a \(unclean ? "kill -9" : "clean stop")"
        case .rotateKey(let unclean): "key rotated after a \(unclean ? "kill -9" : "clean stop")"
        case .tokenChange(let fileFirst): "token changed (\(fileFirst ? "file, then server" : "server, then file"))"
        case .serverDown: "server down"
        case .serverUp: "server up and healthy"
        case .serverFaulty(let kind): "server faulty (\(WalkStep.faults[kind % WalkStep.faults.count].name))"
        case .portal(let kind): "captive portal (\(kind))"
        case .clockStep(let seconds): "wall clock stepped \(seconds > 0 ? "+" : "")\(seconds) s"
        case .outOfService: "kiosk out of service"
        case .inService: "kiosk back in service"
        case .diskFull: "the state directory's file system full"
        case .diskFreed: "space freed on the state directory's file system"
        case .injectForeignSegment: "lists removed, another kiosk's plain segment copied in, start"
        }
    }

    /// Whether the step talks to the daemon (and is skipped while it is down).
    var needsTheDaemon: Bool {
        switch self {
        case .respondent, .kioskRespondent, .resume, .outOfService, .inService: true
        default: false
        }
    }

    /// The faulty servers a walk meets: the mock server's faults (doc/mock-server.md).
    static let faults: [(name: String, json: String)] = [
        ("503 for half", #""unavailableShare": 0.5, "retryAfterSeconds": 1"#),
        ("500 for half", #""serverErrorShare": 0.5"#),
        ("garbled 200 for a third", #""malformedShare": 0.34"#),
    ]

    /// Draws a walk of `count` steps from `seed`. `portals` are the mock server's portal kinds.
    public static func walk(seed: UInt64, count: Int, portals: [String]) -> [WalkStep] {
        var random = SplitMix(seed: seed)
        return (0 ..< count).map { _ in draw(&random, portals: portals) }
    }

    /// One respondent in ten is under 19, and screened out.
    static func age(_ random: inout SplitMix) -> Int {
        random.int(in: 0 ..< 10) == 0 ? random.int(in: 10 ... 18) : random.int(in: 19 ... 80)
    }

    static func draw(_ random: inout SplitMix, portals: [String]) -> WalkStep {
        // Weights: respondents most often, then the transitions.
        let table: [(Int, (inout SplitMix) -> WalkStep)] = [
            (4, { r in .respondent(answers: r.int(in: 1 ... 5), age: age(&r), like: r.int(in: 1 ... 7)) }),
            (3, { r in .kioskRespondent(answers: r.int(in: 1 ... 5), age: age(&r), like: r.int(in: 1 ... 7)) }),
            (4, { r in .resume(pick: r.int(in: 0 ... 9), answers: r.int(in: 1 ... 4)) }),
            (2, { _ in .kill }),
            (2, { r in .powerCut(bytes: r.int(in: 1 ... 40)) }),
            (2, { _ in .cleanRestart }),
            (2, { r in .encryptionOn(unclean: r.int(in: 0 ... 1) == 0) }),
            (1, { r in .rotateKey(unclean: r.int(in: 0 ... 1) == 0) }),
            (1, { r in .tokenChange(fileFirst: r.int(in: 0 ... 1) == 0) }),
            (2, { _ in .serverDown }),
            (3, { _ in .serverUp }),
            (1, { r in .serverFaulty(kind: r.int(in: 0 ..< faults.count)) }),
            (2, { r in .portal(kind: portals[r.int(in: 0 ..< portals.count)]) }),
            (1, { r in .clockStep(seconds: r.int(in: 0 ... 1) == 0 ? -86_400 : 86_400) }),
            (1, { _ in .injectForeignSegment }),
            (1, { _ in .diskFull }),
            (1, { _ in .outOfService }),
            (1, { _ in .inService }),
            (2, { _ in .diskFreed }),
        ]
        var pick = random.int(in: 0 ..< table.reduce(0) { $0 + $1.0 })
        for (weight, make) in table {
            if pick < weight { return make(&random) }
            pick -= weight
        }
        return .kill
    }
}

extension SplitMix {
    /// A whole number in `range`, from the next value.
    mutating func int(in range: Range<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
    mutating func int(in range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
}

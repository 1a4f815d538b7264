public import Entities

/// The thresholds the quality flags are judged by, and which flags are judged at all. The
/// defaults, and why, are in `doc/data-quality.md`; each is a daemon setting.
public struct QualityRules: Sendable, Hashable {
    /// The flags judged; the others are never raised.
    public var enabled: Set<QualityFlag.Kind> = Set(QualityFlag.Kind.allCases)

    // speeding
    /// Reading time per word of the question: 100 ms is 600 words a minute, a scanning rate at
    /// which a reader still finds a word but no longer follows a sentence.
    public var msPerWord = 100
    /// The least time a choice (a tap on an option) takes, the question unread.
    public var minimumChoiceMs = 700
    /// The least time a typed answer (text or number) takes before its characters.
    public var minimumEntryMs = 1000
    /// Typing time per character of a typed answer: 100 ms is 120 words a minute, beyond a fast
    /// typist on an on-screen keyboard.
    public var msPerCharacter = 100
    /// The share of the judged questions that must be under their floor.
    public var speedingShare = 0.5
    /// The fewest timed answers speeding (and regularity) is judged on.
    public var minimumJudged = 3

    // straight_lining
    /// The run of score or single-choice questions (of 3 or more options) answered at the same
    /// position that raises the flag.
    public var straightLineRun = 6

    // rapid_repeat
    /// How soon after the previous completion of the same stage on this kiosk a start counts.
    public var repeatWindowSeconds = 180
    /// The share of the answers both gave that must be the same.
    public var repeatShare = 0.8

    // burst
    /// The window completions are counted in.
    public var burstWindowSeconds = 300
    /// The least time between two people at one kiosk besides their reading: one steps away, the
    /// next reads the welcome screen and taps Start.
    public var handoverSeconds = 20

    // mechanical
    /// Times between answers whose coefficient of variation (standard deviation over mean) is
    /// below this, in thousandths, are too regular for a hand.
    public var mechanicalCVPermille = 50
    /// The fewest timed answers regularity is judged on.
    public var mechanicalMinimum = 5

    public init() {}

    /// The least time a person takes to read `form` and give `answer`, in ms.
    public func floorMilliseconds(_ form: Form, answer: AnswerValue?) -> Int {
        let words = form.question.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).count
        let reading = words * msPerWord
        switch form.input {
        case .text, .number:
            let characters: Int
            switch answer {
            case .string(let text)?: characters = text.count
            case .number(let number)?: characters = String(number).count
            case .integer(let number)?: characters = String(number).count
            default: characters = 0
            }
            return minimumEntryMs + reading + characters * msPerCharacter
        case .checkbox, .radio, .score, .choiceWithInput:
            return minimumChoiceMs + reading
        }
    }
}

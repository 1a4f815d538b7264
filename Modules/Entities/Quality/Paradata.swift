/// What the daemon measured of one question as a respondent answered it: times on the monotonic
/// clock and counts, never what was typed.
public struct QuestionTiming: Sendable, Hashable {
    /// The question's index in its stage's forms, from 0.
    public var position: Int
    /// From the moment the question was put to the respondent (the stage began, the previous
    /// answer was accepted, or Back came to it) to the moment its answer was accepted; nil when a
    /// restart of the daemon came between (the monotonic clock does not survive one).
    public var milliseconds: Int?
    /// Whether the question was skipped (an optional one) rather than answered.
    public var skipped: Bool
    /// What the kiosk page could tell of the person's input on it; nil over the control API, or
    /// from a page whose script did not run.
    public var input: PageInput?

    public init(position: Int, milliseconds: Int?, skipped: Bool = false, input: PageInput? = nil) {
        self.position = position
        self.milliseconds = milliseconds
        self.skipped = skipped
        self.input = input
    }
}

/// What a kiosk page counts of the person's hands on one question, without new permissions:
/// taps (pointer presses) and key presses (the on-screen keyboard's included), the time between
/// the first and the last of them, and how often "Are you still there?" was shown.
public struct PageInput: Sendable, Hashable {
    /// The most any count (or span in ms) is taken as: a page that claims more is clamped.
    public static let limit = 10_000_000

    public var taps: Int
    public var keys: Int
    /// Milliseconds between the first and the last tap or key press (0 with one or none).
    public var spanMilliseconds: Int
    public var stillThereShown: Int

    public init(taps: Int, keys: Int, spanMilliseconds: Int, stillThereShown: Int) {
        self.taps = Self.clamp(taps)
        self.keys = Self.clamp(keys)
        self.spanMilliseconds = Self.clamp(spanMilliseconds)
        self.stillThereShown = Self.clamp(stillThereShown)
    }

    static func clamp(_ value: Int) -> Int { min(max(value, 0), limit) }
}

/// What the daemon measured of one stage as a respondent took it.
public struct StageParadata: Sendable, Hashable {
    /// One entry per accepted answer or skip, in the order they came (a question answered again
    /// after Back has two).
    public var questions: [QuestionTiming]
    /// Back taps (or `back` calls).
    public var backs: Int
    /// Answers given again after Back with a different value.
    public var changed: Int
    /// Whether the daemon restarted during the stage: the questions answered before it are not
    /// timed, and the flags are judged on the rest.
    public var restarted: Bool

    public init(questions: [QuestionTiming] = [], backs: Int = 0, changed: Int = 0, restarted: Bool = false) {
        self.questions = questions
        self.backs = backs
        self.changed = changed
        self.restarted = restarted
    }

    /// The timed answers (skips left out), in order: what speeding and regularity are judged on.
    public var timedAnswers: [QuestionTiming] {
        questions.filter { !$0.skipped && $0.milliseconds != nil }
    }

    /// "Are you still there?" shown during the stage, as the page counted it.
    public var stillThereShown: Int { questions.reduce(0) { $0 + ($1.input?.stillThereShown ?? 0) } }

    /// The median time on a timed answer, in ms; nil with none.
    public var medianMilliseconds: Int? {
        let times = timedAnswers.compactMap(\.milliseconds).sorted()
        guard !times.isEmpty else { return nil }
        return times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
    }

    /// A question on which the respondent took longer than this (ms) counts as an idle gap: a
    /// minute, about when the kiosk first asks "Are you still there?".
    public static let idleGapMilliseconds = 60_000

    /// The timed answers that took longer than ``idleGapMilliseconds``.
    public var idleGaps: Int { timedAnswers.filter { ($0.milliseconds ?? 0) > Self.idleGapMilliseconds }.count }

    /// The time on every timed answer added up, in ms.
    public var totalMilliseconds: Int { timedAnswers.reduce(0) { $0 + ($1.milliseconds ?? 0) } }
}

public import Entities

/// A session's id as the backend names it. The kiosk keeps it server-side only.
public struct KioskSessionID: Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}

/// A session as the respondent's pages show it.
public struct RespondentView: Sendable, Hashable {
    /// Where the session is.
    public enum State: Sendable, Hashable {
        /// Asking ``RespondentView/question``.
        case asking(KioskQuestion)
        /// The stage is complete and being delivered; the next stage (or the end) is not known yet.
        case waiting
        /// Ended.
        case closed(KioskOutcome)
    }

    public var session: KioskSessionID
    /// The current stage's type ID (`common`, `1`, ...).
    public var stage: String
    public var language: KioskLanguage
    public var state: State
    /// The 1-based position of the current question in the stage (`k` of "question k of n").
    public var position: Int
    /// The number of questions in the stage (`n`).
    public var total: Int
    /// Whether ``KioskBackend/back(session:)`` would go to an earlier question of this stage.
    public var canGoBack: Bool

    public init(session: KioskSessionID, stage: String, language: KioskLanguage, state: State, position: Int, total: Int, canGoBack: Bool) {
        self.session = session
        self.stage = stage
        self.language = language
        self.state = state
        self.position = position
        self.total = total
        self.canGoBack = canGoBack
    }

    /// The question being asked, when the session is asking.
    public var question: KioskQuestion? {
        if case .asking(let question) = state { return question }
        return nil
    }
}

/// The question being asked: its form, in the session's language, and the respondent's
/// current answer to it (after going back), if any.
public struct KioskQuestion: Sendable, Hashable {
    public var form: Form
    public var currentValue: AnswerValue?

    public init(form: Form, currentValue: AnswerValue? = nil) {
        self.form = form
        self.currentValue = currentValue
    }
}

/// How a session ended, as far as the respondent's pages care.
public enum KioskOutcome: String, Sendable, Hashable, CaseIterable {
    /// Every stage was delivered; the survey is complete.
    case thanks
    /// A screening rule ended the survey (shown as a neutral "that is all").
    case noTarget = "no_target"
    /// The answers are saved and will be delivered later.
    case queued
    /// Closed for inactivity: the pages return to the welcome screen.
    case abandoned
}

/// What a respondent posted for a question.
public enum KioskInput: Sendable, Hashable {
    /// What was entered on the question's form (Next), field by field: the text of a `text` or
    /// `number` form, the chosen option value(s) of a choice form, the score of a `radioNumber`
    /// form, and the free text of a `radioWithInput` form's extra option. The session logic
    /// decides what it means, a form posted empty included (a skip of an optional question,
    /// "please answer" for a required one).
    case entry(FormEntry)
    /// The respondent skipped the question (allowed for optional questions only).
    case skip
}

/// Why an answer was not accepted.
public enum KioskRejection: Sendable, Hashable {
    /// A rule of the form failed; `message` is its `validateText`, in the session's language.
    case rule(message: String)
    /// The question is required and nothing was given.
    case missing
    /// The input does not fit the form (not a number, not an option, no text for the extra
    /// option). `detail` is for the log; the page shows its own text for the form's type.
    case unreadable(detail: String)
}

/// The result of ``KioskBackend/answer(session:question:position:input:)``.
public enum KioskAnswerResult: Sendable, Hashable {
    /// Recorded; the view is the session after it (the next question, the next stage, or the end).
    case accepted(RespondentView)
    /// Not recorded; the same question is asked again.
    case rejected(KioskRejection, RespondentView)
    /// The session no longer asks the question that was answered; nothing was recorded.
    case questionChanged(RespondentView)
}

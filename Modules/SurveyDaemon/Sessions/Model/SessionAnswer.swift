public import Entities

/// An answer to a session's current question, as a front end hands it to the session manager:
/// the control API's request and the kiosk's form both become one.
public struct SessionAnswer: Sendable, Hashable {
    /// What the respondent gave.
    public enum Input: Sendable, Hashable {
        /// Words typed (`surveyctl answer`): read by `InputParser` against the form asked, so a
        /// choice may be given by its value or its position.
        case words([String])
        /// What was entered on the form's fields (the kiosk): read exactly, and posted empty on
        /// an optional question, a skip.
        case entry(FormEntry)
        /// Skip an optional question.
        case skip
    }

    /// The session's id; nil: the only open session.
    public var session: String?
    public var input: Input
    /// The name of the question answered, as it was shown; nil: whichever is asked. When the
    /// session has moved on, nothing is recorded (``SessionError/Code/questionChanged``).
    public var question: String?
    /// The position the question was shown at, from 1; checked like ``question``.
    public var position: Int?
    /// What the kiosk page counted of the person's input on the question (paradata); nil over
    /// the control API. It never decides whether the answer is accepted.
    public var pageInput: PageInput?

    public init(session: String? = nil, input: Input, question: String? = nil, position: Int? = nil, pageInput: PageInput? = nil) {
        self.session = session
        self.input = input
        self.question = question
        self.position = position
        self.pageInput = pageInput
    }
}

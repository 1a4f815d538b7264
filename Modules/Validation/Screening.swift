public import Entities

/// A respondent found not eligible by a screening rule.
public struct ScreeningResult: Sendable, Hashable {
    /// The index of the rule in `escapeValidate`.
    public var ruleIndex: Int
    /// The answer the rule looked at.
    public var answerName: String

    public init(ruleIndex: Int, answerName: String) {
        self.ruleIndex = ruleIndex
        self.answerName = answerName
    }
}

extension Questionnaire {
    /// Whether the answers given so far screen the respondent out.
    ///
    /// A screening rule applies as soon as the answer it names is given; a rule whose answer
    /// is not given yet does not screen anyone out.
    /// - Parameter answers: every answer of the respondent so far (any stage).
    /// - Returns: the first failing rule, or nil when the respondent is still eligible.
    public func screeningResult(for answers: [String: AnswerValue]) -> ScreeningResult? {
        for (index, rule) in screening.enumerated() {
            guard let answer = answers[rule.answer] else { continue }
            if !rule.check.passes(answer, earlierAnswers: answers) {
                return ScreeningResult(ruleIndex: index, answerName: rule.answer)
            }
        }
        return nil
    }
}

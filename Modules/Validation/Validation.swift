/// Validation: the rules of a questionnaire applied to a respondent's answers.
///
/// It checks one answer against its form (`required` and the five rule types, first failure
/// wins, its `validateText` is the message), decides whether a respondent is screened out
/// (`escapeValidate`), and parses what a person typed into a typed ``Entities/AnswerValue`` for
/// each form type, with messages that list what would be accepted; it reads a form's fields as a
/// page posts them (``Entities/FormEntry``) the same way, and says what an answer with nothing in
/// it means (``Entities/Form/blankAnswer(nothingChosen:emptyEntry:)``). Every front end (the
/// daemon's sessions, `surveyctl`) shares this code, so an answer means the same everywhere.

public import Entities

/// Why an answer was not accepted.
public struct ValidationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The form whose answer failed.
    public var formName: String
    /// The index of the failing rule in the form's `validate` list; nil when a required answer is missing.
    public var ruleIndex: Int?
    /// The rule's `validateText`, or the required-answer message: shown to the respondent.
    public var message: String

    public init(formName: String, ruleIndex: Int?, message: String) {
        self.formName = formName
        self.ruleIndex = ruleIndex
        self.message = message
    }

    public var description: String { message }

    /// Shown when a required form is skipped (the contract gives no text for this case).
    public static let requiredMessage = "This question needs an answer."
}

/// Checks answers against a form's rules.
public enum AnswerValidator {
    /// Checks one answer.
    ///
    /// - Parameters:
    ///   - answer: the answer, or nil when the respondent skipped the form.
    ///   - form: the form being answered.
    ///   - earlierAnswers: every answer the same respondent gave before, in this stage and
    ///     earlier ones, for `sameAS "$name"`.
    /// - Returns: nil when the answer is accepted, else the first failure.
    public static func check(_ answer: AnswerValue?, for form: Form, earlierAnswers: [String: AnswerValue] = [:]) -> ValidationFailure? {
        guard let answer else {
            return form.isRequired ? ValidationFailure(formName: form.name, ruleIndex: nil, message: ValidationFailure.requiredMessage) : nil
        }
        for (index, rule) in form.rules.enumerated() where !rule.check.passes(answer, earlierAnswers: earlierAnswers) {
            return ValidationFailure(formName: form.name, ruleIndex: index, message: rule.message)
        }
        return nil
    }
}

extension Check {
    /// True when `answer` passes this check, as the contract's rule table says.
    public func passes(_ answer: AnswerValue, earlierAnswers: [String: AnswerValue] = [:]) -> Bool {
        switch self {
        case .notEqual(let target):
            return !answer.json.isSameValue(as: target)
        case .range(let bounds):
            guard let value = answer.numericValue ?? answer.stringValue.flatMap({ Double($0) }) else { return false }
            return bounds.contains(value)
        case .sameAs(.literal(let target)):
            return answer.json.isSameValue(as: target)
        case .sameAs(.answer(let name)):
            guard let other = earlierAnswers[name] else { return false }
            return answer.json.isSameValue(as: other.json)
        case .pattern(let pattern):
            switch answer {
            case .string(let text): return pattern.matchesWhole(text)
            case .number, .integer: return pattern.matchesWhole(answer.description)
            case .list(let items): return items.allSatisfy(pattern.matchesWhole)
            }
        case .length(let bounds):
            return bounds.contains(answer.length)
        }
    }
}

extension AnswerValue {
    /// Characters (grapheme clusters) of a string, items of a list, characters of a number's text.
    public var length: Int {
        switch self {
        case .string(let text): text.count
        case .list(let items): items.count
        case .number, .integer: description.count
        }
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}

extension JSONValue {
    /// Equality of answers and targets: numbers compare by value (`0` equals `0.0`).
    func isSameValue(as other: JSONValue) -> Bool {
        switch (self, other) {
        case (.number(let a), .number(let b)): a == b
        case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.isSameValue(as: $1) }
        default: self == other
        }
    }
}

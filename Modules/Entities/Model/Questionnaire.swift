#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One stage's questionnaire, as served by `GET /api/question/{typeID}`, checked.
///
/// A `Questionnaire` value always satisfies the definition rules of the contract: form names
/// are unique, choice forms carry options, rule targets fit their rule and patterns compile.
/// A `$name` naming none of its forms is an answer of an earlier stage, listed in
/// ``externalReferences``: ``Questionnaire/decode(response:stage:knownAnswerNames:)`` checks
/// them against the names it is given, ``Questionnaire/decodeDeferringReferences(response:stage:)``
/// leaves them to ``checkReferences(against:)`` when the stage starts.
public struct Questionnaire: Sendable, Hashable {
    /// The stage's type ID (`common`, `1`, ...), used in error locations.
    public var stage: String
    /// The forms, in the order they are asked.
    public var forms: [Form]
    /// Screening rules (`escapeValidate`): a failing one ends the session as `no_target`.
    public var screening: [ScreeningRule]
    /// The answers of earlier stages that the rules name, in the order of the definition.
    public var externalReferences: [AnswerReference]

    public init(stage: String, forms: [Form], screening: [ScreeningRule], externalReferences: [AnswerReference] = []) {
        self.stage = stage
        self.forms = forms
        self.screening = screening
        self.externalReferences = externalReferences
    }

    /// The form named `name`, if any.
    public func form(named name: String) -> Form? {
        forms.first { $0.name == name }
    }
}

/// One question of a questionnaire.
public struct Form: Sendable, Hashable {
    /// The key of this answer in the upload.
    public var name: String
    /// The text shown to the respondent.
    public var question: String
    /// An unanswered optional form is left out of the upload.
    public var isRequired: Bool
    /// How the form is asked, with what that kind of form needs (options, default).
    public var input: FormInput
    /// Checks on the answer, in order; the first failure is reported.
    public var rules: [Rule]

    public init(name: String, question: String, isRequired: Bool, input: FormInput, rules: [Rule]) {
        self.name = name
        self.question = question
        self.isRequired = isRequired
        self.input = input
        self.rules = rules
    }

    /// The wire name of the form's type.
    public var type: FormType { input.type }
}

/// The six form types of the contract, by their wire names.
public enum FormType: String, Sendable, Hashable, CaseIterable {
    case text, number, checkbox, radio, radioNumber, radioWithInput
}

/// How a form is asked. Choice forms carry their options; a score carries its optional default.
public enum FormInput: Sendable, Hashable {
    /// Free text; the placeholder is shown before input.
    case text(placeholder: String?)
    /// A number; the placeholder (usually 0) is shown before input.
    case number(placeholder: Double?)
    /// Any number of options; the upload is the list of chosen values.
    case checkbox(options: [ChoiceOption])
    /// Exactly one option; the upload is its value.
    case radio(options: [ChoiceOption])
    /// A score from 1 to 7 (`radioNumber`); options, when given, label the scores.
    case score(options: [ChoiceOption], defaultScore: Int?)
    /// One option, or free text when the option whose value is ``ChoiceOption/extraValue`` is chosen.
    case choiceWithInput(options: [ChoiceOption])

    /// The wire name of this input's form type.
    public var type: FormType {
        switch self {
        case .text: .text
        case .number: .number
        case .checkbox: .checkbox
        case .radio: .radio
        case .score: .radioNumber
        case .choiceWithInput: .radioWithInput
        }
    }

    /// The options of a choice form (empty for text and number forms).
    public var options: [ChoiceOption] {
        switch self {
        case .text, .number: []
        case .checkbox(let options), .radio(let options), .choiceWithInput(let options): options
        case .score(let options, _): options
        }
    }

    /// The scores a `radioNumber` form accepts.
    public static let scoreRange: ClosedRange<Int> = 1...7
}

/// One option of a choice form: `label` is shown, `value` is uploaded.
public struct ChoiceOption: Sendable, Hashable, Codable {
    public var label: String
    public var value: String
    /// Marks a default selection.
    public var checked: Bool

    /// The value of the option that asks for free text in a `radioWithInput` form.
    public static let extraValue = "extra"

    public init(label: String, value: String, checked: Bool = false) {
        self.label = label
        self.value = value
        self.checked = checked
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        label = try container.decode(String.self, forKey: .label)
        value = try container.decode(String.self, forKey: .value)
        checked = try container.decodeIfPresent(Bool.self, forKey: .checked) ?? false
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Entities

/// What a question's control shows as entered or chosen: the respondent's rejected input, else
/// their current answer (after Back), else the questionnaire's defaults.
struct EnteredAnswer: Sendable, Hashable {
    /// The text of a text or number field.
    var text: String = ""
    /// The chosen option values (or score).
    var chosen: [String] = []
    /// The free text of a `radioWithInput` form's extra option.
    var extra: String = ""

    /// What a respondent posted.
    init(posted: PostedAnswer) {
        text = posted.values.first ?? ""
        chosen = posted.values
        extra = posted.extra ?? ""
    }

    /// A recorded answer to `form`, or its defaults when there is none.
    init(current: AnswerValue?, form: Form) {
        guard let current else {
            switch form.input {
            case .score(let options, let defaultScore):
                if let score = defaultScore ?? options.first(where: \.checked).flatMap({ Int($0.value) }) { chosen = [String(score)] }
            default:
                chosen = form.input.options.filter(\.checked).map(\.value)
            }
            return
        }
        switch (form.input, current) {
        case (.choiceWithInput(let options), .string(let value)):
            if options.contains(where: { $0.value == value && $0.value != ChoiceOption.extraValue }) {
                chosen = [value]
            } else {
                chosen = [ChoiceOption.extraValue]
                extra = value
            }
        case (_, .list(let values)):
            chosen = values
        case (_, .string(let value)):
            text = value
            chosen = [value]
        case (_, .integer(let value)):
            text = String(value)
            chosen = [String(value)]
        case (_, .number(let value)):
            text = Self.format(value)
            chosen = [text]
        }
    }

    /// A number as a person writes it: no `.0` on whole numbers.
    static func format(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

/// What the respondent posted for a question: the `value` fields and the `extra` field.
struct PostedAnswer: Sendable, Hashable {
    var values: [String]
    var extra: String?

    /// The entry the session logic reads, field by field.
    var entry: FormEntry { FormEntry(values: values, extra: extra) }
}

extension QuestionPage {
    /// Fills the control of `form` with `entered`.
    mutating func setControl(for form: Form, entered: EnteredAnswer, strings: KioskStrings) {
        switch form.input {
        case .text(let placeholder):
            text = TextControl(entered: entered.text, placeholder: placeholder.flatMap { $0.isEmpty ? nil : $0 }, inputmode: Self.asksForEmail(form) ? "email" : "text")
        case .number(let placeholder):
            text = TextControl(entered: entered.text, placeholder: placeholder.map(EnteredAnswer.format), inputmode: "decimal")
        case .radio(let options):
            choices = ChoiceControl(isCheckbox: false, options: Self.options(options, type: "radio", entered: entered))
        case .checkbox(let options):
            choices = ChoiceControl(isCheckbox: true, options: Self.options(options, type: "checkbox", entered: entered))
        case .choiceWithInput(let options):
            let controls = Self.options(options, type: "radio", entered: entered)
            let extra = zip(options, controls).first { $0.0.value == ChoiceOption.extraValue }?.1
            choices = ChoiceControl(
                isCheckbox: false,
                options: controls,
                extraField: extra.map { ExtraField(extraText: entered.extra, extraLabel: strings.specify, extraFor: $0.optionID) }
            )
        case .score(let options, _):
            let focused = FormInput.scoreRange.first { entered.chosen.contains(String($0)) } ?? FormInput.scoreRange.lowerBound
            let scores = FormInput.scoreRange.map { score -> ScoreControl in
                let label = options.first { $0.value == String(score) }?.label
                return ScoreControl(
                    score: score,
                    scoreLabel: label.flatMap { $0.isEmpty || $0 == String(score) ? nil : $0 },
                    selected: entered.chosen.contains(String(score)),
                    scoreTakesFocus: score == focused
                )
            }
            scale = ScaleControl(scores: scores, hasLabels: scores.contains { $0.scoreLabel != nil })
        }
    }

    private static func options(_ options: [ChoiceOption], type: String, entered: EnteredAnswer) -> [OptionControl] {
        let focused = options.firstIndex { entered.chosen.contains($0.value) } ?? 0
        return options.enumerated().map { index, option in
            OptionControl(
                optionID: "option-\(index + 1)",
                inputType: type,
                optionValue: option.value,
                optionLabel: option.label,
                checked: entered.chosen.contains(option.value),
                takesFocus: index == focused
            )
        }
    }

    /// Whether the field asks for an e-mail address (then the on-screen keyboard has `@`): a
    /// rule's pattern has an `@`, or the placeholder does (a confirmation field whose rule is
    /// `sameAS` an e-mail question shows an address as its placeholder).
    static func asksForEmail(_ form: Form) -> Bool {
        if case .text(let placeholder?) = form.input, placeholder.contains("@") { return true }
        return form.rules.contains { rule in
            if case .pattern(let pattern) = rule.check { return pattern.body.contains("@") }
            return false
        }
    }
}

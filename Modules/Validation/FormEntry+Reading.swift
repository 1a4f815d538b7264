public import Entities

/// What an answer with nothing in it means for a form: one rule, for every front end.
public enum BlankAnswer: Sendable, Hashable {
    /// The question is skipped (an optional one, whose form was posted empty).
    case skip
    /// The question needs an answer and none was given (``ValidationFailure/requiredMessage``).
    case missing
}

extension Form {
    /// The rule for an answer in which nothing was chosen or typed (spaces count as nothing).
    ///
    /// - A form posted empty (`emptyEntry`: a page's Next with nothing entered) skips an
    ///   optional question.
    /// - Nothing chosen on a required number, choice or score form is ``BlankAnswer/missing``:
    ///   such a form has no empty answer.
    /// - Otherwise nil, and the input is read: an empty text or an empty list of checkboxes is an
    ///   answer the form's rules judge (`not ""`, `minMaxLength`), and nothing chosen on an
    ///   optional choice is refused as unreadable, with what the form accepts.
    public func blankAnswer(nothingChosen: Bool, emptyEntry: Bool) -> BlankAnswer? {
        if emptyEntry, !isRequired { return .skip }
        guard nothingChosen, isRequired, !input.hasEmptyAnswer else { return nil }
        return .missing
    }
}

extension FormInput {
    /// Whether nothing entered is itself an answer: the empty text of a `text` form, no option
    /// of a `checkbox` form.
    public var hasEmptyAnswer: Bool {
        switch self {
        case .text, .checkbox: true
        case .number, .radio, .score, .choiceWithInput: false
        }
    }
}

extension FormEntry {
    /// The answer this entry gives `form`, for ``AnswerValidator`` to check: the text of a
    /// `text` form as it was typed, the number of a `number` form, the value of the option
    /// chosen (a `radio`), the values of the options chosen (a `checkbox`, each once, in the
    /// order posted), the score chosen (`radioNumber`), the option chosen or the extra option's
    /// text, trimmed (`radioWithInput`).
    ///
    /// Values are taken exactly: an option is chosen by its `value`, never by its position or
    /// another case. Decide what a blank entry means first (``Form/blankAnswer(nothingChosen:emptyEntry:)``).
    /// - Throws: ``InputError`` naming the question, when the entry does not fit the form: more
    ///   than one value for a one-value form, a value the form does not offer, a number that is
    ///   not one or not finite, a score outside 1 to 7, the extra option without its text.
    public func answer(for form: Form) throws(InputError) -> AnswerValue {
        switch form.input {
        case .text:
            return .string(try single(form) ?? "")
        case .number:
            let text = (try single(form) ?? "").trimmingSpaces()
            guard let number = Double(text), !number.isNaN else {
                throw Self.error(form, "\(Self.quoted(text)) is not a number", accepted: ["a number such as 42 or 3.5"])
            }
            guard number.isFinite else {
                throw Self.error(form, "\(Self.quoted(text)) is out of range for a number", accepted: ["a number such as 42 or 3.5"])
            }
            return .number(number)
        case .radio(let options):
            return .string(try offered(try chosen(form, options), options, form))
        case .checkbox(let options):
            var chosen: [String] = []
            for value in values where !value.isBlank {
                let option = try offered(value, options, form)
                if !chosen.contains(option) { chosen.append(option) }
            }
            return .list(chosen)
        case .score(let options, _):
            let text = (try single(form) ?? "").trimmingSpaces()
            guard let score = Int(text), FormInput.scoreRange.contains(score) else {
                throw Self.error(form, "\(Self.quoted(text)) is not a score", accepted: InputParser.describeScore(options))
            }
            return .integer(score)
        case .choiceWithInput(let options):
            let option = try offered(try chosen(form, options, withExtra: true), options, form, withExtra: true)
            guard option == ChoiceOption.extraValue else { return .string(option) }
            let free = (extra ?? "").trimmingSpaces()
            guard !free.isEmpty else {
                throw Self.error(form, "the option \"\(ChoiceOption.extraValue)\" was chosen without its text", accepted: ["\(ChoiceOption.extraValue) with your own text"])
            }
            return .string(free)
        }
    }

    /// The one value of a one-value form, nil when none was posted.
    private func single(_ form: Form) throws(InputError) -> String? {
        guard values.count <= 1 else {
            throw Self.error(form, "\(values.count) values were posted, and this question takes one", accepted: InputParser.acceptedInput(for: form))
        }
        return values.first
    }

    /// The option value chosen on a one-choice form.
    private func chosen(_ form: Form, _ options: [ChoiceOption], withExtra: Bool = false) throws(InputError) -> String {
        guard let value = try single(form), !value.isBlank else {
            throw Self.error(form, "no option was chosen", accepted: InputParser.describe(options, withExtra: withExtra))
        }
        return value
    }

    /// `value` when one of `options` has it exactly.
    private func offered(_ value: String, _ options: [ChoiceOption], _ form: Form, withExtra: Bool = false) throws(InputError) -> String {
        guard options.contains(where: { $0.value == value }) else {
            throw Self.error(form, "\(Self.quoted(value)) is not one of the options it offers", accepted: InputParser.describe(options, withExtra: withExtra))
        }
        return value
    }

    private static func error(_ form: Form, _ problem: String, accepted: [String]) -> InputError {
        InputError(formName: form.name, problem: "question \"\(form.name)\": \(problem)", accepted: accepted)
    }

    /// What was posted, quoted, at most 40 characters of it.
    private static func quoted(_ text: String) -> String {
        text.count <= 40 ? "\"\(text)\"" : "\"\(text.prefix(40))…\""
    }
}

import Foundation
public import Entities

/// Typed input that does not fit a form, with what would be accepted.
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
    public var formName: String
    /// What was wrong with the input.
    public var problem: String
    /// What the form accepts, e.g. `1) beer  Beer` lines or `a score from 1 to 7`.
    public var accepted: [String]

    public var message: String {
        accepted.isEmpty ? problem : "\(problem). Accepted: \(accepted.joined(separator: "; "))"
    }

    public var description: String { message }
}

/// Turns what a person typed into the answer a form uploads.
///
/// Front ends pass the words typed (a shell's arguments, or a line split on spaces). Choices are
/// given by value or by 1-based position; a checkbox takes several (as separate words or
/// separated by commas); `radioWithInput` takes `extra` (or its position) followed by free text;
/// a score takes a whole number from 1 to 7.
public enum InputParser {
    public static func parse(_ words: [String], for form: Form) throws(InputError) -> AnswerValue {
        let joined = words.joined(separator: " ")
        switch form.input {
        case .text:
            return .string(joined)
        case .number:
            let text = joined.trimmingSpaces()
            guard let value = Double(text), value.isFinite else {
                throw InputError(formName: form.name, problem: "\"\(text)\" is not a number", accepted: ["a number such as 42 or 3.5"])
            }
            return .number(value)
        case .radio(let options):
            guard words.count == 1 else {
                throw InputError(formName: form.name, problem: words.isEmpty ? "no option was given" : "give exactly one option", accepted: describe(options))
            }
            return .string(try choose(words[0], from: options, form: form).value)
        case .checkbox(let options):
            let tokens = words.flatMap { $0.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init) }.filter { !$0.isEmpty }
            var values: [String] = []
            for token in tokens {
                let value = try choose(token, from: options, form: form).value
                if !values.contains(value) { values.append(value) }
            }
            return .list(values)
        case .score(let options, _):
            let text = joined.trimmingSpaces()
            if let score = Int(text), FormInput.scoreRange.contains(score) { return .integer(score) }
            if let option = options.first(where: { $0.value == text }), let score = Int(option.value), FormInput.scoreRange.contains(score) {
                return .integer(score)
            }
            throw InputError(formName: form.name, problem: "\"\(text)\" is not a score", accepted: describeScore(options))
        case .choiceWithInput(let options):
            guard let first = words.first else {
                throw InputError(formName: form.name, problem: "no option was given", accepted: describe(options, withExtra: true))
            }
            let option = try choose(first, from: options, form: form, withExtra: true)
            guard option.value == ChoiceOption.extraValue else {
                guard words.count == 1 else {
                    throw InputError(formName: form.name, problem: "free text follows only \"\(ChoiceOption.extraValue)\"", accepted: describe(options, withExtra: true))
                }
                return .string(option.value)
            }
            let free = words.dropFirst().joined(separator: " ").trimmingSpaces()
            guard !free.isEmpty else {
                throw InputError(formName: form.name, problem: "\"\(ChoiceOption.extraValue)\" needs free text after it", accepted: ["\(ChoiceOption.extraValue) YOUR ANSWER"])
            }
            return .string(free)
        }
    }

    /// What a form accepts, one line per choice, for prompts and error messages.
    public static func acceptedInput(for form: Form) -> [String] {
        switch form.input {
        case .text: ["any text"]
        case .number: ["a number such as 42 or 3.5"]
        case .radio(let options): describe(options)
        case .checkbox(let options): describe(options) + ["several choices separated by spaces or commas"]
        case .score(let options, _): describeScore(options)
        case .choiceWithInput(let options): describe(options, withExtra: true)
        }
    }

    private static func choose(_ token: String, from options: [ChoiceOption], form: Form, withExtra: Bool = false) throws(InputError) -> ChoiceOption {
        if let option = options.first(where: { $0.value == token }) { return option }
        if let position = Int(token), options.indices.contains(position - 1) { return options[position - 1] }
        if let option = options.first(where: { $0.value.caseInsensitiveCompare(token) == .orderedSame }) { return option }
        throw InputError(formName: form.name, problem: "\"\(token)\" is not one of the options", accepted: describe(options, withExtra: withExtra))
    }

    static func describe(_ options: [ChoiceOption], withExtra: Bool = false) -> [String] {
        options.enumerated().map { index, option in
            var line = "\(index + 1)) \(option.value)"
            if option.label != option.value { line += " (\(option.label))" }
            if withExtra && option.value == ChoiceOption.extraValue { line += " followed by your own text" }
            if option.checked { line += " [default]" }
            return line
        }
    }

    static func describeScore(_ options: [ChoiceOption]) -> [String] {
        let range = "a score from \(FormInput.scoreRange.lowerBound) to \(FormInput.scoreRange.upperBound)"
        return options.isEmpty ? [range] : [range] + describe(options)
    }
}

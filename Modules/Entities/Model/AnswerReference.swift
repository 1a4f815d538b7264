/// An answer of an earlier stage that a questionnaire's rules name: a `sameAS "$name"` rule or
/// a screening rule (`escapeValidate`) whose name is none of the stage's own forms.
///
/// Decoding records these instead of checking them (``Questionnaire/decodeDeferringReferences(response:stage:)``),
/// because which answers exist depends on the session, not on the questionnaire: the daemon
/// checks them when a stage starts, against the session's answers
/// (``Questionnaire/checkReferences(against:)``).
public struct AnswerReference: Sendable, Hashable {
    /// Which kind of rule names the answer.
    public enum Rule: Sendable, Hashable {
        /// A form's `sameAS "$name"` rule.
        case sameAs
        /// A screening rule (`escapeValidate`).
        case screening
    }

    /// The answer's name (the form name of an earlier stage), without the `$`.
    public var name: String
    public var rule: Rule
    /// Where the rule is: stage, form and rule index, or screening index.
    public var location: DefinitionLocation

    public init(name: String, rule: Rule, location: DefinitionLocation) {
        self.name = name
        self.rule = rule
        self.location = location
    }

    /// The definition error when no answer has this name.
    public var unresolved: DefinitionError {
        switch rule {
        case .sameAs:
            DefinitionError(.unknownReference, at: location, "the sameAS rule refers to \"$\(name)\", but no form has the name \"\(name)\"")
        case .screening:
            DefinitionError(.unknownReference, at: location, "the screening rule names the answer \"\(name)\", but no form has that name")
        }
    }
}

extension Questionnaire {
    /// The references to earlier stages' answers that none of `answerNames` satisfies, as
    /// located definition errors, in the order of the definition.
    public func unresolvedReferences(answerNames: Set<String>) -> [DefinitionError] {
        externalReferences.filter { !answerNames.contains($0.name) }.map(\.unresolved)
    }

    /// Checks that every answer of an earlier stage the rules name is among `answerNames` (a
    /// session's answers so far), as a stage's start does.
    /// - Throws: `DefinitionErrors` with an `unknown_reference` error for each name missing,
    ///   located as decoding with those names known would locate it.
    public func checkReferences(against answerNames: Set<String>) throws(DefinitionErrors) {
        let errors = unresolvedReferences(answerNames: answerNames)
        if !errors.isEmpty { throw DefinitionErrors(stage: stage, errors: errors) }
    }
}

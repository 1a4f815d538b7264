#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The questionnaire payload as it arrives, before it is checked: lenient where the contract
/// allows several shapes, so that every problem can be found and located in one pass.
struct WireQuestionnaire: Decodable, Sendable {
    struct WireForm: Decodable, Sendable {
        var name: String
        var question: String
        var required: Bool?
        var type: String
        var placeholder: JSONValue?
        var validate: [WireRule]?
    }

    struct WireRule: Decodable, Sendable {
        var type: String
        var target: JSONValue?
        var validateText: String?
    }

    struct WireScreeningRule: Decodable, Sendable {
        var name: String
        var type: String
        var target: JSONValue?
    }

    var forms: [WireForm]
    var escapeValidate: [WireScreeningRule]?
}

extension Questionnaire {
    /// Decodes and checks a `GET /api/question/{typeID}` response (the `{status, data}` envelope),
    /// references to earlier stages' answers included.
    ///
    /// - Parameters:
    ///   - response: the response body.
    ///   - stage: the type ID it was fetched for, used in error locations.
    ///   - knownAnswerNames: names of answers from earlier stages that `sameAS "$name"` and
    ///     screening rules may refer to, besides this stage's own forms.
    /// - Throws: `DefinitionErrors` listing every problem found, each with its location, in the
    ///   order of the definition.
    public static func decode(response: Data, stage: String, knownAnswerNames: Set<String> = []) throws(DefinitionErrors) -> Questionnaire {
        try decode(response: response, stage: stage, references: knownAnswerNames)
    }

    /// Decodes and checks a `GET /api/question/{typeID}` response, leaving out the answers of
    /// earlier stages its rules name: they are listed in ``externalReferences``, for
    /// ``checkReferences(against:)`` when the stage starts. What this returns or throws depends
    /// on the bytes alone, so it can be kept by content hash.
    ///
    /// - Throws: `DefinitionErrors` listing every other problem found, each with its location.
    public static func decodeDeferringReferences(response: Data, stage: String) throws(DefinitionErrors) -> Questionnaire {
        try decode(response: response, stage: stage, references: nil)
    }

    /// - Parameter knownAnswerNames: the names references to earlier stages may use; nil
    ///   leaves the references unchecked.
    private static func decode(response: Data, stage: String, references knownAnswerNames: Set<String>?) throws(DefinitionErrors) -> Questionnaire {
        let wire: WireQuestionnaire
        do {
            wire = try Envelope<WireQuestionnaire>.payload(from: response, what: "questionnaire response")
        } catch {
            throw DefinitionErrors(stage: stage, errors: [
                DefinitionError(.malformed, at: DefinitionLocation(stage: stage), error.detail)
            ])
        }
        var checker = DefinitionChecker(stage: stage)
        let questionnaire = checker.check(wire)
        let errors = checker.errors(knownAnswerNames: knownAnswerNames)
        if !errors.isEmpty {
            throw DefinitionErrors(stage: stage, errors: errors)
        }
        return questionnaire
    }

    /// The form names of a response, read without checking it: used to let several stages'
    /// definitions refer to each other's answers (e.g. when linting several files together).
    public static func formNames(inResponse response: Data) -> [String] {
        (try? Envelope<WireQuestionnaire>.payload(from: response, what: "questionnaire response"))?.forms.map(\.name) ?? []
    }
}

import ControlAPI
import Entities

/// The questionnaires sessions start stages with. A definition source decodes each questionnaire
/// once per content hash; what depends on the session, the answers of earlier stages its rules
/// name (`sameAS "$name"`, screening), is checked here when a stage starts or is restored.
extension SessionManager {
    /// The questionnaire of a stage a session starts, its answers so far named `earlierAnswers`.
    /// - Throws: `definition_invalid` when its rules name an answer the session does not have
    ///   (located as in the definition); the source's error when it cannot be loaded.
    func loadDefinition(stage: String, language: String, earlierAnswers: Set<String>) async throws(ControlError) -> LoadedDefinition {
        let definition: LoadedDefinition
        do {
            definition = try await definitions.definition(stage: stage, language: language)
        } catch let error as ControlError {
            throw error
        } catch {
            throw ControlError.unavailable("definition_unavailable", "the questionnaire of stage \(stage) (\(language)) cannot be loaded: \(error)")
        }
        try Self.checkReferences(of: definition, stage: stage, answerNames: earlierAnswers)
        return definition
    }

    /// The cached questionnaire a journaled stage start recorded, checked as the start was
    /// against the session's answers before it; nil when it is not cached.
    func cachedDefinition(hash: String, stage: String, earlierAnswers: Set<String>) async throws -> LoadedDefinition? {
        guard let definition = try await definitions.cachedDefinition(hash: hash, stage: stage) else { return nil }
        try Self.checkReferences(of: definition, stage: stage, answerNames: earlierAnswers)
        return definition
    }

    static func checkReferences(of definition: LoadedDefinition, stage: String, answerNames: Set<String>) throws(ControlError) {
        do {
            try definition.questionnaire.checkReferences(against: answerNames)
        } catch {
            throw ControlError.definitionInvalid(stage: stage, error)
        }
    }
}

extension ControlError {
    /// `503 definition_invalid`: the questionnaire of `stage` has errors, or names answers of
    /// earlier stages the session does not have.
    static func definitionInvalid(stage: String, _ errors: DefinitionErrors) -> ControlError {
        .unavailable("definition_invalid", "the questionnaire of stage \(stage) has errors: \(errors); fix the survey definition on the server")
    }
}

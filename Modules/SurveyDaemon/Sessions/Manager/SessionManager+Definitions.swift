import Entities

/// The questionnaires sessions start stages with. A definition source decodes each questionnaire
/// once per content hash; what depends on the session, the answers of earlier stages its rules
/// name (`sameAS "$name"`, screening), is checked here when a stage starts or is restored.
extension SessionManager {
    /// The questionnaire of a stage a session starts, its answers so far named `earlierAnswers`.
    /// - Throws: `definitionInvalid` when its rules name an answer the session does not have
    ///   (located as in the definition); the source's error when it cannot be loaded.
    func loadDefinition(stage: String, language: String, earlierAnswers: Set<String>) async throws(SessionError) -> LoadedDefinition {
        let definition: LoadedDefinition
        do {
            definition = try await definitions.definition(stage: stage, language: language)
        } catch let error as DefinitionSourceError {
            throw SessionError(error)
        } catch {
            throw SessionError(.definitionUnavailable, "the questionnaire of stage \(stage) (\(language)) cannot be loaded: \(error)")
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

    static func checkReferences(of definition: LoadedDefinition, stage: String, answerNames: Set<String>) throws(SessionError) {
        do {
            try definition.questionnaire.checkReferences(against: answerNames)
        } catch {
            throw SessionError(.definitionInvalid, DefinitionSourceError.invalidMessage(stage: stage, error))
        }
    }
}

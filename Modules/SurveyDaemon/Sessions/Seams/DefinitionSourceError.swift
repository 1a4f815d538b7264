/// Why a ``DefinitionSource`` cannot give the questionnaire of a stage: a stable ``code`` and a
/// ``message`` saying what to do. Sessions pass it on as a ``SessionError`` with the same message.
public struct DefinitionSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable, CaseIterable {
        /// The survey server has no questionnaire for the stage; asking again will not help.
        case noSuchStage
        /// Neither the server nor the cache can give it now.
        case unavailable
        /// The questionnaire has errors, and no good copy is cached.
        case invalid
    }

    public var code: Code
    /// What went wrong and what to do.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "DefinitionSourceError.\(code): \(message)" }

    /// What `invalid` says: the questionnaire of `stage` has errors (or names answers of earlier
    /// stages the session does not have), and who can fix it.
    public static func invalidMessage(stage: String, _ errors: some Error) -> String {
        "the questionnaire of stage \(stage) has errors: \(errors); fix the survey definition on the server"
    }
}

/// A language a questionnaire exists in and a session runs in, as the survey server names it
/// in `?lang=`. The control API and the journal keep the raw text on the wire.
public enum Language: String, CaseIterable, Codable, Sendable, Hashable {
    case ko, en

    /// The accepted names for a message, in order: `ko or en`.
    public static let choices: String = {
        let names = allCases.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }()

    /// The language named `text`.
    ///
    /// - Throws: `UnknownLanguage`, whose message names `text` and the languages accepted.
    public init(parsing text: String) throws(UnknownLanguage) {
        guard let language = Language(rawValue: text) else { throw UnknownLanguage(text: text) }
        self = language
    }
}

/// A language name surveyd does not know.
public struct UnknownLanguage: Error, Sendable, Hashable, CustomStringConvertible {
    public static let code = "bad_language"
    /// The text given as a language.
    public var text: String

    public init(text: String) {
        self.text = text
    }

    /// `"fr" is not ko or en`.
    public var message: String { "\"\(text)\" is not \(Language.choices)" }
    public var description: String { message }
}

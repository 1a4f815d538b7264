/// Where in a questionnaire definition a problem was found.
public struct DefinitionLocation: Sendable, Hashable, CustomStringConvertible {
    /// The stage's type ID.
    public var stage: String
    /// The form's index in `forms` (0-based), when the problem is in a form.
    public var formIndex: Int?
    /// The form's name, when known.
    public var formName: String?
    /// The rule's index in the form's `validate` list (0-based).
    public var ruleIndex: Int?
    /// The rule's index in `escapeValidate` (0-based).
    public var screeningIndex: Int?
    /// A JSON path inside the definition, for problems found while decoding.
    public var path: String?

    public init(stage: String, formIndex: Int? = nil, formName: String? = nil, ruleIndex: Int? = nil, screeningIndex: Int? = nil, path: String? = nil) {
        self.stage = stage
        self.formIndex = formIndex
        self.formName = formName
        self.ruleIndex = ruleIndex
        self.screeningIndex = screeningIndex
        self.path = path
    }

    /// E.g. `stage "common", forms[1] "email", validate[0]`.
    public var description: String {
        var parts = ["stage \"\(stage)\""]
        if let formIndex {
            parts.append("forms[\(formIndex)]" + (formName.map { " \"\($0)\"" } ?? ""))
        } else if let formName {
            parts.append("form \"\(formName)\"")
        }
        if let ruleIndex { parts.append("validate[\(ruleIndex)]") }
        if let screeningIndex { parts.append("escapeValidate[\(screeningIndex)]") }
        if let path { parts.append(path) }
        return parts.joined(separator: ", ")
    }
}

/// One problem in a questionnaire definition.
public struct DefinitionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable codes, for tests, logs and metrics.
    public enum Code: String, Sendable, Hashable {
        /// Not JSON, or a field is missing or of the wrong JSON type.
        case malformed
        case unknownFormType = "unknown_form_type"
        case unknownRuleType = "unknown_rule_type"
        /// A rule target that does not fit its rule type.
        case badTarget = "bad_target"
        case badPlaceholder = "bad_placeholder"
        case missingOptions = "missing_options"
        case duplicateFormName = "duplicate_form_name"
        /// A `sameAS "$name"` or a screening rule naming no form.
        case unknownReference = "unknown_reference"
        case badPattern = "bad_pattern"
    }

    public var code: Code
    public var location: DefinitionLocation
    /// What is wrong and what was expected.
    public var message: String

    public init(_ code: Code, at location: DefinitionLocation, _ message: String) {
        self.code = code
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}

/// Every problem found in one questionnaire definition, reported together.
public struct DefinitionErrors: Error, Sendable, CustomStringConvertible {
    public var stage: String
    /// At least one error, in the order they were found.
    public var errors: [DefinitionError]

    public init(stage: String, errors: [DefinitionError]) {
        self.stage = stage
        self.errors = errors
    }

    public var description: String {
        let header = "questionnaire \"\(stage)\" has \(errors.count) definition error\(errors.count == 1 ? "" : "s"); fix the definition on the server (or the file) and try again:"
        return ([header] + errors.map { "  - \($0)" }).joined(separator: "\n")
    }
}

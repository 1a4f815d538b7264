/// ControlAPI: the JSON bodies of surveyd's control API (`/v1/...` over its Unix socket).
///
/// The daemon encodes these types and `surveyctl` decodes them, so the two cannot drift apart.
/// `doc/control-api.md` documents every endpoint with a curl example. Field names are
/// camelCase; times are ISO 8601 strings; durations are seconds.

import Foundation

/// `POST /v1/sessions`: start a session.
public struct StartSessionRequest: Sendable, Hashable, Codable {
    /// The first stage's type ID; `common` when absent.
    public var typeId: String?
    /// `ko` or `en`; the daemon's default language when absent.
    public var lang: String?

    public init(typeId: String? = nil, lang: String? = nil) {
        self.typeId = typeId
        self.lang = lang
    }
}

/// `POST /v1/sessions/{id}/answers`: answer the current question, or skip it.
public struct AnswerRequest: Sendable, Hashable, Codable {
    /// The words typed: a choice's value or 1-based position, several for a checkbox,
    /// `extra` followed by free text, a number, a score, or free text.
    public var values: [String]
    /// Skip an optional question instead of answering it.
    public var skip: Bool

    public init(values: [String] = [], skip: Bool = false) {
        self.values = values
        self.skip = skip
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        values = try c.decodeIfPresent([String].self, forKey: .values) ?? []
        skip = try c.decodeIfPresent(Bool.self, forKey: .skip) ?? false
    }
}

/// One option of a choice question.
public struct OptionView: Sendable, Hashable, Codable {
    public var position: Int
    public var value: String
    public var label: String
    public var isDefault: Bool

    public init(position: Int, value: String, label: String, isDefault: Bool) {
        self.position = position
        self.value = value
        self.label = label
        self.isDefault = isDefault
    }
}

/// The question being asked.
public struct QuestionView: Sendable, Hashable, Codable {
    public var name: String
    public var text: String
    /// The form type's wire name (`text`, `number`, `checkbox`, `radio`, `radioNumber`, `radioWithInput`).
    public var type: String
    public var required: Bool
    /// What the question accepts, one line each (options with values, the score range, `extra` with free text).
    public var accepts: [String]
    public var options: [OptionView]

    public init(name: String, text: String, type: String, required: Bool, accepts: [String], options: [OptionView]) {
        self.name = name
        self.text = text
        self.type = type
        self.required = required
        self.accepts = accepts
        self.options = options
    }
}

/// A session as the control API shows it.
public struct SessionView: Sendable, Hashable, Codable {
    public var id: String
    public var stage: String
    public var lang: String
    /// `asking`, `awaiting_delivery` or `closed`.
    public var state: String
    /// `thanks`, `no_target`, `queued` or `abandoned` once closed.
    public var outcome: String?
    /// Question `current` of `total` in the current stage.
    public var current: Int
    public var total: Int
    public var question: QuestionView?
    public var completedStages: [String]
    /// The follow-up stage the server named for a `queued` session once its upload was delivered.
    public var followUp: String?
    public var lastActivity: String

    public init(id: String, stage: String, lang: String, state: String, outcome: String?, current: Int, total: Int, question: QuestionView?, completedStages: [String], followUp: String?, lastActivity: String) {
        self.id = id
        self.stage = stage
        self.lang = lang
        self.state = state
        self.outcome = outcome
        self.current = current
        self.total = total
        self.question = question
        self.completedStages = completedStages
        self.followUp = followUp
        self.lastActivity = lastActivity
    }
}

/// The reply to an answer: accepted (and what comes next) or rejected (and why).
public struct AnswerReply: Sendable, Hashable, Codable {
    public var accepted: Bool
    /// The validation message when rejected.
    public var message: String?
    public var session: SessionView

    public init(accepted: Bool, message: String?, session: SessionView) {
        self.accepted = accepted
        self.message = message
        self.session = session
    }
}

/// The body of every error reply: `{"error": {"code": ..., "message": ...}}`.
public struct ErrorReply: Sendable, Hashable, Codable {
    public struct Detail: Sendable, Hashable, Codable {
        /// Stable, for scripts.
        public var code: String
        /// What went wrong and what to do.
        public var message: String
    }

    public var error: Detail

    public init(code: String, message: String) {
        error = Detail(code: code, message: message)
    }
}

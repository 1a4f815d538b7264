#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `POST /v1/sessions`: start a session.
public struct StartSessionRequest: Sendable, Hashable, Codable {
    /// The first stage's type ID; the daemon's `firstStage` setting (`common` by default) when absent.
    public var typeId: String?
    /// `ko` or `en`; the daemon's default language when absent.
    public var lang: String?

    public init(typeId: String? = nil, lang: String? = nil) {
        self.typeId = typeId
        self.lang = lang
    }
}

/// `POST /v1/answers`: answer the current question of a session, or skip it.
public struct AnswerRequest: Sendable, Hashable, Codable {
    /// The session's id; when absent, the only open session. With several open, the reply is
    /// a `several_sessions` error listing them.
    public var session: String?
    /// The words typed: a choice's value or 1-based position, several for a checkbox,
    /// `extra` followed by free text, a number, a score, or free text.
    public var values: [String]
    /// Skip an optional question instead of answering it.
    public var skip: Bool
    /// The name of the question answered (``QuestionView/name``), as it was shown. When the
    /// session has moved on, the answer is refused with `409 question_changed` instead of being
    /// taken for the next question, and the same answer to it sent again returns the first
    /// result. Absent: the current question, whichever it is.
    public var question: String?
    /// The position the question was shown at (``SessionView/current``, from 1), checked like
    /// `question`.
    public var position: Int?

    public init(session: String? = nil, values: [String] = [], skip: Bool = false, question: String? = nil, position: Int? = nil) {
        self.session = session
        self.values = values
        self.skip = skip
        self.question = question
        self.position = position
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        session = try c.decodeIfPresent(String.self, forKey: .session)
        values = try c.decodeIfPresent([String].self, forKey: .values) ?? []
        skip = try c.decodeIfPresent(Bool.self, forKey: .skip) ?? false
        question = try c.decodeIfPresent(String.self, forKey: .question)
        position = try c.decodeIfPresent(Int.self, forKey: .position)
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
    /// True when this answer repeated the one the session accepted last (same `question`,
    /// `position` and values): nothing new was recorded, and `session` is where it stands now.
    /// Absent otherwise.
    public var repeated: Bool?
    public var session: SessionView

    public init(accepted: Bool, message: String?, repeated: Bool? = nil, session: SessionView) {
        self.accepted = accepted
        self.message = message
        self.repeated = repeated
        self.session = session
    }
}

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

    public init(session: String? = nil, values: [String] = [], skip: Bool = false) {
        self.session = session
        self.values = values
        self.skip = skip
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        session = try c.decodeIfPresent(String.self, forKey: .session)
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

/// `GET /v1/status`.
public struct StatusView: Sendable, Hashable, Codable {
    public struct Connectivity: Sendable, Hashable, Codable {
        /// `online`, `offline` or `unknown` (no check has run yet).
        public var state: String
        /// When the state last changed.
        public var since: String?

        public init(state: String, since: String?) {
            self.state = state
            self.since = since
        }
    }

    public struct Queue: Sendable, Hashable, Codable {
        public var pending: Int
        public var inFlight: Int
        public var dead: Int
        public var delivered: Int
        public var oldestPendingAgeSeconds: Double?
        public var lastDeliveryAt: String?
        public var nextRetryAt: String?

        public init(pending: Int, inFlight: Int, dead: Int, delivered: Int, oldestPendingAgeSeconds: Double?, lastDeliveryAt: String?, nextRetryAt: String?) {
            self.pending = pending
            self.inFlight = inFlight
            self.dead = dead
            self.delivered = delivered
            self.oldestPendingAgeSeconds = oldestPendingAgeSeconds
            self.lastDeliveryAt = lastDeliveryAt
            self.nextRetryAt = nextRetryAt
        }
    }

    /// Whether a journal (`sessions` or `queue`) can write. While one cannot, answers or
    /// finished stages are refused with `503` and `surveyctl status` exits 74.
    public struct Journal: Sendable, Hashable, Codable {
        /// `sessions` or `queue`.
        public var name: String
        /// `ok`, or `failed` while writes fail.
        public var state: String
        /// The failing system call (`write`, `fdatasync`, …) and its errno's name (`ENOSPC`,
        /// `EIO`, …) and text, while failed.
        public var call: String?
        public var cause: String?
        public var causeText: String?
        /// Since when it has been failing.
        public var since: String?

        public init(name: String, state: String, call: String? = nil, cause: String? = nil, causeText: String? = nil, since: String? = nil) {
            self.name = name
            self.state = state
            self.call = call
            self.cause = cause
            self.causeText = causeText
            self.since = since
        }
    }

    public var version: String
    public var startedAt: String
    public var uptimeSeconds: Double
    public var connectivity: Connectivity
    public var queue: Queue
    /// Problems found in the journal (recovered corruption, torn tails), for the operator.
    public var journalProblems: [String]
    /// The open sessions, oldest activity first.
    public var sessions: [SessionView]
    /// Closed sessions that ended `queued` and whose upload was delivered later with a follow-up
    /// stage (`followUp`), newest first, at most ``StatusView/followUpLimit``.
    public var followUps: [SessionView]
    /// The journals and whether they can write.
    public var journals: [Journal]

    /// True while a journal cannot write.
    public var journalFailed: Bool { journals.contains { $0.state != "ok" } }

    /// The most follow-ups status lists.
    public static let followUpLimit = 20

    public init(version: String, startedAt: String, uptimeSeconds: Double, connectivity: Connectivity, queue: Queue, journalProblems: [String], sessions: [SessionView], followUps: [SessionView] = [], journals: [Journal] = []) {
        self.version = version
        self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds
        self.connectivity = connectivity
        self.queue = queue
        self.journalProblems = journalProblems
        self.sessions = sessions
        self.followUps = followUps
        self.journals = journals
    }

    /// A reply without `followUps` or `journals` (an older daemon) reads as none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(String.self, forKey: .version)
        startedAt = try c.decode(String.self, forKey: .startedAt)
        uptimeSeconds = try c.decode(Double.self, forKey: .uptimeSeconds)
        connectivity = try c.decode(Connectivity.self, forKey: .connectivity)
        queue = try c.decode(Queue.self, forKey: .queue)
        journalProblems = try c.decode([String].self, forKey: .journalProblems)
        sessions = try c.decode([SessionView].self, forKey: .sessions)
        followUps = try c.decodeIfPresent([SessionView].self, forKey: .followUps) ?? []
        journals = try c.decodeIfPresent([Journal].self, forKey: .journals) ?? []
    }
}

/// `POST /v1/flush`: attempt every pending submission now.
public struct FlushRequest: Sendable, Hashable, Codable {
    /// Accepted and ignored: the daemon replies at once. To wait for the queue to drain, flush
    /// once and watch `GET /v1/status` (``ControlClient/flushAndWait(timeout:pollInterval:progress:)``).
    public var wait: Bool
    /// Accepted and ignored, like `wait`.
    public var timeoutSeconds: Double?

    public init(wait: Bool = false, timeoutSeconds: Double? = nil) {
        self.wait = wait
        self.timeoutSeconds = timeoutSeconds
    }
}

public struct FlushReply: Sendable, Hashable, Codable {
    /// Submissions still pending when the reply was made.
    public var pending: Int
    public var dead: Int
    /// True when nothing is pending.
    public var drained: Bool
    /// `online`, `offline` or `unknown`.
    public var connectivity: String

    public init(pending: Int, dead: Int, drained: Bool, connectivity: String) {
        self.pending = pending
        self.dead = dead
        self.drained = drained
        self.connectivity = connectivity
    }
}

/// A submission the server refused for good, kept aside.
public struct DeadLetterView: Sendable, Hashable, Codable {
    public var id: String
    public var stage: String
    public var lang: String
    public var reason: String
    public var idempotencyKey: String
    public var queuedAt: String

    public init(id: String, stage: String, lang: String, reason: String, idempotencyKey: String, queuedAt: String) {
        self.id = id
        self.stage = stage
        self.lang = lang
        self.reason = reason
        self.idempotencyKey = idempotencyKey
        self.queuedAt = queuedAt
    }
}

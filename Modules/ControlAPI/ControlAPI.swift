/// ControlAPI: the JSON bodies of surveyd's control API (`/v1/...` over its Unix socket).
///
/// The daemon encodes these types and `surveyctl` decodes them, so the two cannot drift apart.
/// `doc/control-api.md` documents every endpoint with a curl example. Field names are
/// camelCase; times are ISO 8601 strings; durations are seconds.

import Foundation

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

/// The body of every error reply: `{"error": {"code": ..., "message": ...}}`, and for errors
/// about a session's progress (`question_changed`) the session as it stands, `"session": {...}`.
public struct ErrorReply: Sendable, Hashable, Codable {
    public struct Detail: Sendable, Hashable, Codable {
        /// Stable, for scripts.
        public var code: String
        /// What went wrong and what to do.
        public var message: String
    }

    public var error: Detail
    /// The session the error is about, where it stands now; absent for most errors.
    public var session: SessionView?

    public init(code: String, message: String, session: SessionView? = nil) {
        error = Detail(code: code, message: message)
        self.session = session
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
        /// When the next upload can start: the later of the earliest pending submission's
        /// backoff and the delivery ramp's hold-off and pace; absent when nothing is pending.
        public var nextRetryAt: String?
        /// The bytes the queue's journal holds on disk (delivered bodies included until
        /// compaction or `surveyctl purge` removes them); absent from an older daemon.
        public var bytesOnDisk: Int?
        /// Why no upload starts before a time, while the server's 429/503 holds uploads back.
        public var holdOff: HoldOff?

        public init(pending: Int, inFlight: Int, dead: Int, delivered: Int, oldestPendingAgeSeconds: Double?, lastDeliveryAt: String?, nextRetryAt: String?, bytesOnDisk: Int? = nil) {
            self.bytesOnDisk = bytesOnDisk
            self.pending = pending
            self.inFlight = inFlight
            self.dead = dead
            self.delivered = delivered
            self.oldestPendingAgeSeconds = oldestPendingAgeSeconds
            self.lastDeliveryAt = lastDeliveryAt
            self.nextRetryAt = nextRetryAt
        }
    }

    /// The delivery ramp's hold-off after the server refused uploads as overloaded.
    public struct HoldOff: Sendable, Hashable, Codable {
        /// `the server asked to wait (503)`, or `the server said it is overloaded (429)` when
        /// it named no time.
        public var reason: String
        /// The server's answer, 429 or 503.
        public var status: Int
        /// No upload starts before this time.
        public var until: String

        public init(reason: String, status: Int, until: String) {
            self.reason = reason
            self.status = status
            self.until = until
        }
    }

    /// A stage whose newest questionnaire from the survey server has errors: sessions start from
    /// the last good copy until the server sends a good one.
    public struct DefinitionProblem: Sendable, Hashable, Codable {
        public var stage: String
        public var lang: String
        /// What is wrong with it, for the survey's owner.
        public var error: String
        /// When the server first sent it.
        public var since: String

        public init(stage: String, lang: String, error: String, since: String) {
            self.stage = stage
            self.lang = lang
            self.error = error
            self.since = since
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
    /// Stages whose newest questionnaire from the server has errors, by stage and language.
    public var definitionProblems: [DefinitionProblem]
    /// The journals and whether they can write.
    public var journals: [Journal]
    /// The id this kiosk sends with its uploads (`Survey-Device-Id`); nil from an older daemon.
    public var deviceId: String?
    /// Whether answers are encrypted at rest; nil from an older daemon.
    public var encryption: EncryptionView?
    /// Set while delivery is paused because the server refused the token.
    public var paused: Paused?
    /// Set while the survey server has no questionnaire for the first stage (`firstStage`).
    public var firstStageMissing: FirstStageMissing?
    /// What waits for erasure from the disk; nil from an older daemon.
    public var erasure: Erasure?

    public struct Paused: Sendable, Hashable, Codable {
        /// `the server refused the token (401)`.
        public var reason: String
        public var since: String
        public init(reason: String, since: String) {
            self.reason = reason
            self.since = since
        }
    }

    /// True while a journal cannot write.
    public var journalFailed: Bool { journals.contains { $0.state != "ok" } }

    /// The most follow-ups status lists.
    public static let followUpLimit = 20

    public init(version: String, startedAt: String, uptimeSeconds: Double, connectivity: Connectivity, queue: Queue, journalProblems: [String], sessions: [SessionView], followUps: [SessionView] = [], definitionProblems: [DefinitionProblem] = [], journals: [Journal] = []) {
        self.version = version
        self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds
        self.connectivity = connectivity
        self.queue = queue
        self.journalProblems = journalProblems
        self.sessions = sessions
        self.followUps = followUps
        self.definitionProblems = definitionProblems
        self.journals = journals
    }

    /// A reply without `followUps`, `definitionProblems` or `journals` (an older daemon) reads as none.
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
        definitionProblems = try c.decodeIfPresent([DefinitionProblem].self, forKey: .definitionProblems) ?? []
        journals = try c.decodeIfPresent([Journal].self, forKey: .journals) ?? []
        deviceId = try c.decodeIfPresent(String.self, forKey: .deviceId)
        paused = try c.decodeIfPresent(Paused.self, forKey: .paused)
        firstStageMissing = try c.decodeIfPresent(FirstStageMissing.self, forKey: .firstStageMissing)
        erasure = try c.decodeIfPresent(Erasure.self, forKey: .erasure)
        encryption = try c.decodeIfPresent(EncryptionView.self, forKey: .encryption)
    }
}

/// `POST /v1/resume`'s reply: whether delivery was paused, and the pause it ended.
public struct ResumeReply: Sendable, Hashable, Codable {
    public var resumed: Bool
    public var paused: StatusView.Paused?
    public init(resumed: Bool, paused: StatusView.Paused?) {
        self.resumed = resumed
        self.paused = paused
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

/// `POST /v1/dead/{id}/requeue` (the body is optional): which idempotency key the letter is sent with.
public struct RequeueRequest: Sendable, Hashable, Codable {
    public enum Key: String, Sendable, Hashable, Codable {
        /// The key it was last sent with.
        case keep
        /// A new key.
        case new
    }

    /// Nil: a new key for a `rejected` letter, its key for an `unknown` one.
    public var key: Key?

    public init(key: Key? = nil) { self.key = key }
}

/// A submission the server refused for good, kept aside.
public struct DeadLetterView: Sendable, Hashable, Codable {
    public var id: String
    public var stage: String
    public var lang: String
    public var reason: String
    /// The key it was last sent with; in a requeue's reply, the key it is sent with now.
    public var idempotencyKey: String
    public var queuedAt: String
    /// `rejected` (the server refused it: a requeue gives it a new key) or `unknown` (the server
    /// may hold it under its key: a requeue keeps the key).
    public var outcome: String
    /// In a requeue's reply, when the requeue gave a new key: the key it had before.
    public var previousIdempotencyKey: String?

    public init(id: String, stage: String, lang: String, reason: String, idempotencyKey: String, queuedAt: String, outcome: String = "unknown", previousIdempotencyKey: String? = nil) {
        self.id = id
        self.stage = stage
        self.lang = lang
        self.reason = reason
        self.idempotencyKey = idempotencyKey
        self.queuedAt = queuedAt
        self.outcome = outcome
        self.previousIdempotencyKey = previousIdempotencyKey
    }
}

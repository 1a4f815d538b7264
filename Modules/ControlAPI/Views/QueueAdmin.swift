// The wire types of the queue's operator endpoints: `GET /v1/queue`, `GET /v1/queue/{id}`,
// `GET /v1/queue/export`, `POST /v1/queue/import`, `POST /v1/requeue`, `DELETE /v1/dead/{id}` and
// `POST /v1/purge` (doc/control-api.md).

/// One pending or dead submission as `GET /v1/queue` lists it.
public struct QueueEntryView: Sendable, Hashable, Codable {
    public var id: String
    /// `pending` or `dead`.
    public var state: String
    public var stage: String
    public var lang: String
    public var queuedAt: String
    public var ageSeconds: Double
    /// The key it is sent with.
    public var idempotencyKey: String
    /// Failed attempts since the daemon started (a dead letter's last one included only when it
    /// was retried before).
    public var attempts: Int
    /// The last attempt's error: a pending submission's last transient failure, a dead letter's reason.
    public var lastError: String?
    /// When the next attempt may start (pending, waiting out a backoff).
    public var nextRetryAt: String?
    /// A dead letter's outcome: `rejected` or `unknown`.
    public var outcome: String?
    /// `GET /v1/queue/{id}` only: the session it came from.
    public var session: String?
    /// `GET /v1/queue/{id}?answers=true` only: the upload body, answers included.
    public var body: String?
    /// `GET /v1/queue/{id}` only: the headers it is sent with beside the contract's, the stage's
    /// `Survey-Paradata` and (when it raised a quality flag) `Survey-Quality`; absent with none.
    public var headers: [String: String]?

    public init(id: String, state: String, stage: String, lang: String, queuedAt: String, ageSeconds: Double, idempotencyKey: String, attempts: Int, lastError: String?, nextRetryAt: String?, outcome: String?, session: String? = nil, body: String? = nil) {
        self.id = id
        self.state = state
        self.stage = stage
        self.lang = lang
        self.queuedAt = queuedAt
        self.ageSeconds = ageSeconds
        self.idempotencyKey = idempotencyKey
        self.attempts = attempts
        self.lastError = lastError
        self.nextRetryAt = nextRetryAt
        self.outcome = outcome
        self.session = session
        self.body = body
    }
}

/// `GET /v1/queue`: the pending submissions and the dead letters, oldest first.
public struct QueueListView: Sendable, Hashable, Codable {
    public var pending: [QueueEntryView]
    public var dead: [QueueEntryView]

    public init(pending: [QueueEntryView], dead: [QueueEntryView]) {
        self.pending = pending
        self.dead = dead
    }
}

/// One line of `GET /v1/queue/export` (NDJSON), and the body of `POST /v1/queue/import`.
/// `body` is the upload body as sent to the survey server (`POST /v1/answers/{stage}` with the
/// `Idempotency-Key` header set to `idempotencyKey`).
public struct QueueExportLine: Sendable, Hashable, Codable {
    /// The id in the exporting queue (ignored by an import, which gives a new one).
    public var id: String?
    /// `pending`, `dead` or `delivered` in the exporting queue (ignored by an import).
    public var state: String?
    public var idempotencyKey: String
    public var stage: String
    public var lang: String
    public var definitionHash: String
    public var queuedAt: String
    public var session: String?
    public var body: String
    /// The headers it is sent with beside the contract's (`Survey-Paradata`, `Survey-Quality`);
    /// absent with none. An import keeps them.
    public var headers: [String: String]?

    public init(
        id: String?, state: String?, idempotencyKey: String, stage: String, lang: String, definitionHash: String, queuedAt: String, session: String?, body: String,
        headers: [String: String]? = nil
    ) {
        self.headers = headers
        self.id = id
        self.state = state
        self.idempotencyKey = idempotencyKey
        self.stage = stage
        self.lang = lang
        self.definitionHash = definitionHash
        self.queuedAt = queuedAt
        self.session = session
        self.body = body
    }
}

/// `POST /v1/requeue`: the dead letters named in `ids`, or every one with `all`.
public struct RequeueManyRequest: Sendable, Hashable, Codable {
    public var ids: [String]?
    public var all: Bool?

    public init(ids: [String]? = nil, all: Bool? = nil) {
        self.ids = ids
        self.all = all
    }
}

/// The reply of `POST /v1/requeue`: the letters requeued, each as `POST /v1/dead/{id}/requeue`
/// shows it.
public struct RequeueManyReply: Sendable, Hashable, Codable {
    public var requeued: [DeadLetterView]

    public init(requeued: [DeadLetterView]) {
        self.requeued = requeued
    }
}

/// The reply of `POST /v1/purge`: the bytes of the queue's journal before and after, and what
/// else was erased from the disk.
public struct PurgeReply: Sendable, Hashable, Codable {
    public var bytesBefore: Int
    public var bytesAfter: Int
    public var removedSegments: Int
    /// Pending and dead submissions written again into the new segment.
    public var carried: Int
    /// Closed sessions whose answers were erased from the session journal; nil from an older daemon.
    public var erasedSessions: Int?
    /// Kept copies of damaged bytes removed; nil from an older daemon.
    public var removedKeptCopies: Int?

    public init(bytesBefore: Int, bytesAfter: Int, removedSegments: Int, carried: Int, erasedSessions: Int? = nil, removedKeptCopies: Int? = nil) {
        self.bytesBefore = bytesBefore
        self.bytesAfter = bytesAfter
        self.removedSegments = removedSegments
        self.carried = carried
        self.erasedSessions = erasedSessions
        self.removedKeptCopies = removedKeptCopies
    }
}

/// Which submissions `GET /v1/queue/export` writes.
public enum QueueExportState: String, Sendable, Hashable, Codable, CaseIterable {
    case pending, dead, delivered
}

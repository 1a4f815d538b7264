#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

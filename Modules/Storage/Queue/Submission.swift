// What the submission queue hands out: submissions, dead letters, states and counts. The daemon's
// delivery worker, sessions and control API speak these types too.

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What a queued submission is, without its body.
public struct SubmissionMetadata: Sendable, Hashable {
    /// The idempotency key it was queued with; it identifies the submission and never changes
    /// (a requeue may send it under another key: `QueuedSubmission.requeueKey`).
    public var key: UUID
    public var stage: String
    public var language: String
    public var definitionHash: String
    public var queuedAt: Date
    /// The respondent session the submission came from. Stored with the body on disk, not kept in
    /// memory: listings (`pending`, `dead`, `enqueue`'s result) carry nil; `details(of:)` reads
    /// it back.
    public var session: UUID?
    /// The version of the consent notice the respondent agreed to, when the kiosk asked for
    /// consent; the upload carries it as `Survey-Consent`.
    public var consent: String?

    public init(key: UUID, stage: String, language: String, definitionHash: String, queuedAt: Date, session: UUID? = nil, consent: String? = nil) {
        self.consent = consent
        self.key = key
        self.stage = stage
        self.language = language
        self.definitionHash = definitionHash
        self.queuedAt = queuedAt
        self.session = session
    }
}

/// A submission in the queue: its id (FIFO order) and metadata.
public struct QueuedSubmission: Sendable, Hashable {
    public var id: SubmissionID
    public var metadata: SubmissionMetadata
    /// The idempotency key a requeue gave it in place of `metadata.key`; nil while it is sent
    /// with its own key.
    public var requeueKey: UUID?

    public init(id: SubmissionID, metadata: SubmissionMetadata, requeueKey: UUID? = nil) {
        self.id = id
        self.metadata = metadata
        self.requeueKey = requeueKey
    }

    /// The idempotency key it is sent with.
    public var idempotencyKey: UUID { requeueKey ?? metadata.key }
}

/// What is known of a dead letter's last attempt; it decides which key a requeue sends it with.
public enum DeadOutcome: String, Sendable, Hashable {
    /// The server answered and refused it (`isSuccess: false`, a 4xx): it holds no accepted
    /// submission under the key, so the submission may be sent again under a new key (the stored
    /// refusal would be replayed for the old one).
    case rejected
    /// Whether the server holds it under its key cannot be told (an unreadable reply, for
    /// example): sending it again must keep the key. Dead letters written before outcomes were
    /// recorded read as unknown.
    case unknown
}

/// A dead letter: a submission refused for good, with the reason.
public struct DeadSubmission: Sendable, Hashable {
    public var submission: QueuedSubmission
    public var reason: String
    public var outcome: DeadOutcome

    public init(submission: QueuedSubmission, reason: String, outcome: DeadOutcome = .unknown) {
        self.submission = submission
        self.reason = reason
        self.outcome = outcome
    }
}

/// Which idempotency key a requeued dead letter is sent with.
public enum RequeueKey: Sendable, Hashable {
    /// A new key for a `rejected` letter, the key it was sent with for an `unknown` one.
    case byOutcome
    /// The key it was last sent with (a new key only when the server surely holds nothing under it).
    case keep
    /// A new key, whatever the outcome (the server might then count it twice if it did accept it).
    case new
}

/// Where a submission stands.
public enum SubmissionState: Sendable, Hashable {
    case pending
    /// Delivered, with the server's response as the caller recorded it (the daemon records the
    /// stage the server named next, if any).
    case delivered(response: String?)
    case dead(reason: String)
}

/// Counts for the daemon's status.
public struct SubmissionQueueCounts: Sendable, Hashable {
    public var pending: Int
    public var dead: Int
    /// Delivered since the queue was opened.
    public var delivered: Int
    public var oldestPendingAt: Date?

    public init(pending: Int, dead: Int, delivered: Int, oldestPendingAt: Date?) {
        self.pending = pending
        self.dead = dead
        self.delivered = delivered
        self.oldestPendingAt = oldestPendingAt
    }
}

/// Queue settings.
public struct SubmissionQueueOptions: Sendable {
    public var journal = JournalOptions()
    /// How many delivered keys (with their responses) are remembered for `state(of:)`.
    public var rememberedDeliveries = 4096
    /// A sealed segment is carried forward and removed once at most this share of its records is live.
    public var carryShare = 0.125
    /// The time `SubmissionQueue.erasableSince` records; tests give a clock of their own.
    public var now: @Sendable () -> Date = { Date() }
    /// A monotonic clock, read as time elapsed (`ContinuousClock` by default: it counts the time a
    /// suspended machine slept): `SubmissionQueue.erasableFor` is measured on it, so a step of the
    /// wall clock does not change how long bodies have waited. Tests give a clock of their own.
    public var uptime: @Sendable () -> Duration = { SubmissionQueueOptions.origin.duration(to: .now) }
    public init() {}

    private static let origin = ContinuousClock.now
}

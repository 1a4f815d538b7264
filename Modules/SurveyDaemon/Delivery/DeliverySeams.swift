import Foundation

/// A queued submission as the delivery worker sees it: everything but the body, which is read
/// back from disk only when it is sent.
public struct PendingSubmission: Sendable, Hashable {
    public var id: String
    public var stage: String
    public var language: String
    /// The key it is sent with.
    public var idempotencyKey: UUID
    public var queuedAt: Date
    /// The key it was queued with, which its session waits for: `idempotencyKey` unless a
    /// requeue gave it a new one.
    public var queuedKey: UUID

    public init(id: String, stage: String, language: String, idempotencyKey: UUID, queuedAt: Date, queuedKey: UUID? = nil) {
        self.id = id
        self.stage = stage
        self.language = language
        self.idempotencyKey = idempotencyKey
        self.queuedAt = queuedAt
        self.queuedKey = queuedKey ?? idempotencyKey
    }
}

/// What is known of a dead letter's last attempt; it decides which key a requeue sends it with.
public enum DeadLetterOutcome: String, Sendable, Hashable {
    /// The server answered and refused it: it holds no accepted submission under the key, and a
    /// requeue sends it under a new key (the stored refusal would be replayed for the old one).
    case rejected
    /// Whether the server holds it under its key cannot be told: a requeue keeps the key.
    case unknown
}

/// The durable submission queue, as the delivery worker uses it.
public protocol DeliveryQueue: Sendable {
    /// Pending submissions, oldest first, leaving out the ids in `excluding` (those waiting out a
    /// backoff, so that they do not hide the ones behind them).
    func pending(limit: Int, excluding: Set<String>) async throws -> [PendingSubmission]
    /// The upload body of a submission.
    func body(of submission: PendingSubmission) async throws -> Data
    func markDelivered(_ submission: PendingSubmission, nextTypeId: String?) async throws
    func markDead(_ submission: PendingSubmission, reason: String, outcome: DeadLetterOutcome) async throws
}

/// What one upload attempt came to.
public enum UploadOutcome: Sendable, Hashable {
    /// The server accepted it.
    case delivered(nextTypeId: String?)
    /// Worth trying again later (connection failure, timeout, 408, 429, 5xx), maybe after the server's `Retry-After`.
    case transient(reason: String, retryAfter: Duration?)
    /// The server answered and refused it (`isSuccess: false`, a 4xx other than 401/403/408/429):
    /// retrying will not help, and the server holds no accepted submission under the key.
    case rejected(reason: String)
    /// Retrying the same request will not help, and whether the server holds the submission
    /// under its key cannot be told (an undecodable reply, 401/403, a body that cannot be read).
    case permanent(reason: String)
    /// The connectivity check said offline: no request was sent.
    case offline
}

/// Sends one submission to the survey server (after its connectivity check).
public protocol AnswerUploader: Sendable {
    func upload(stage: String, language: String, body: Data, idempotencyKey: UUID) async -> UploadOutcome
}

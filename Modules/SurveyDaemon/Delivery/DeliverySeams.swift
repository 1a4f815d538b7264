import Foundation

/// A queued submission as the delivery worker sees it: everything but the body, which is read
/// back from disk only when it is sent.
public struct PendingSubmission: Sendable, Hashable {
    public var id: String
    public var stage: String
    public var language: String
    public var idempotencyKey: UUID
    public var queuedAt: Date

    public init(id: String, stage: String, language: String, idempotencyKey: UUID, queuedAt: Date) {
        self.id = id
        self.stage = stage
        self.language = language
        self.idempotencyKey = idempotencyKey
        self.queuedAt = queuedAt
    }
}

/// The durable submission queue, as the delivery worker uses it.
public protocol DeliveryQueue: Sendable {
    /// Pending submissions, oldest first, leaving out the ids in `excluding` (those waiting out a
    /// backoff, so that they do not hide the ones behind them).
    func pending(limit: Int, excluding: Set<String>) async throws -> [PendingSubmission]
    /// The upload body of a submission.
    func body(of submission: PendingSubmission) async throws -> Data
    func markDelivered(_ submission: PendingSubmission, nextTypeId: String?) async throws
    func markDead(_ submission: PendingSubmission, reason: String) async throws
}

/// What one upload attempt came to.
public enum UploadOutcome: Sendable, Hashable {
    /// The server accepted it.
    case delivered(nextTypeId: String?)
    /// Worth trying again later (connection failure, timeout, 408, 429, 5xx), maybe after the server's `Retry-After`.
    case transient(reason: String, retryAfter: Duration?)
    /// Retrying the same body will not help (other 4xx, `isSuccess: false`, undecodable reply).
    case permanent(reason: String)
    /// The connectivity check said offline: no request was sent.
    case offline
}

/// Sends one submission to the survey server (after its connectivity check).
public protocol AnswerUploader: Sendable {
    func upload(stage: String, language: String, body: Data, idempotencyKey: UUID) async -> UploadOutcome
}

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import NIOCore
public import Storage

/// The durable submission queue, as the delivery worker uses it. It speaks the Storage queue's
/// types: a submission is a `QueuedSubmission` named by its `SubmissionID`, without its body,
/// which is read back from disk as it is sent (a few at a time: ``bodies(of:)``).
public protocol DeliveryQueue: Sendable {
    /// Pending submissions, oldest first, leaving out the ids in `excluding` (those waiting out a
    /// backoff, so that they do not hide the ones behind them).
    func pending(limit: Int, excluding: Set<SubmissionID>) async throws -> [QueuedSubmission]
    /// The upload body of a submission, in the buffer the HTTP client sends.
    func body(of id: SubmissionID) async throws -> ByteBuffer
    /// The upload bodies of several submissions, in the order of `ids` (a failure is that
    /// submission's alone); a queue that can read them in one call says so here.
    func bodies(of ids: [SubmissionID]) async -> [Result<ByteBuffer, any Error>]
    /// Records the delivery, with the stage the server named next (if any).
    func markDelivered(_ id: SubmissionID, nextTypeId: String?) async throws
    /// Moves it to the dead letters, with what is known of the outcome (it decides which key a
    /// requeue sends it with).
    func markDead(_ id: SubmissionID, reason: String, outcome: DeadOutcome) async throws
}

extension DeliveryQueue {
    /// One ``body(of:)`` after another.
    public func bodies(of ids: [SubmissionID]) async -> [Result<ByteBuffer, any Error>] {
        await bodiesOneByOne(ids)
    }

    /// The bodies of `ids` read with one ``body(of:)`` each, in order (a failure is that
    /// submission's alone): the default of ``bodies(of:)``, for queues that add to it.
    public func bodiesOneByOne(_ ids: [SubmissionID]) async -> [Result<ByteBuffer, any Error>] {
        var bodies: [Result<ByteBuffer, any Error>] = []
        for id in ids {
            do { bodies.append(.success(try await body(of: id))) } catch { bodies.append(.failure(error)) }
        }
        return bodies
    }
}

/// What one upload attempt came to.
public enum UploadOutcome: Sendable, Hashable {
    /// The server accepted it.
    case delivered(nextTypeId: String?)
    /// Worth trying again later (connection failure, timeout, 408, 429, 5xx), maybe after the server's `Retry-After`.
    case transient(reason: String, retryAfter: Duration?)
    /// The server said it is overloaded (429, 503): transient, and a sign to send less for a while
    /// (the delivery ramp closes), maybe after the server's `Retry-After`; `status` is the
    /// server's answer (429 or 503), for the operator's view of the hold-off.
    case overloaded(reason: String, status: Int, retryAfter: Duration?)
    /// The server answered and refused it (`isSuccess: false`, a 4xx other than 401/403/408/429):
    /// retrying will not help, and the server holds no accepted submission under the key.
    case rejected(reason: String)
    /// Retrying the same request will not help, and whether the server holds the submission
    /// under its key cannot be told (an undecodable reply, 401/403, a body that cannot be read).
    case permanent(reason: String)
    /// The connectivity check said offline: no request was sent.
    case offline
    /// Something else answered in the survey server's place (a captive portal's page, a redirect,
    /// `511`), or the connectivity check found it still answering: nothing is decided about the
    /// submission; it waits, under the same key, as while offline, and is never a dead letter for it.
    case notTheServer(reason: String)
    /// The server's TLS certificate cannot be used now: this device's clock is not set, or the
    /// certificate expired. Nothing was sent; it waits, under the same key, as while offline.
    case certificate(reason: String)
    /// The server's own reply could not be read, so whether it stored the submission is unknown:
    /// sent again under the same key (the contract's idempotency makes that safe), up to
    /// ``DeliveryWorker/unknownOutcomeAttempts`` attempts, then kept aside.
    case unknown(reason: String)
    /// The server refused the token (401 or 403, after the token file was read again): nothing
    /// is decided about the submission; delivery pauses until the token changes.
    case unauthorized(status: Int, reason: String)
}

/// Sends one submission to the survey server (after its connectivity check).
public protocol AnswerUploader: Sendable {
    func upload(stage: String, language: String, body: ByteBuffer, idempotencyKey: UUID) async -> UploadOutcome
    /// The same, with the submission's place in the queue (sent as `Survey-Sequence`).
    func upload(stage: String, language: String, body: ByteBuffer, idempotencyKey: UUID, sequence: UInt64) async -> UploadOutcome
    /// The same, with the version of the consent notice the respondent agreed to (sent as
    /// `Survey-Consent`; nil when the kiosk asked for no consent).
    func upload(stage: String, language: String, body: ByteBuffer, idempotencyKey: UUID, sequence: UInt64, consent: String?) async -> UploadOutcome
}

extension AnswerUploader {
    /// An uploader that has no use for the consent sends without it.
    public func upload(stage: String, language: String, body: ByteBuffer, idempotencyKey: UUID, sequence: UInt64, consent: String?) async -> UploadOutcome {
        await upload(stage: stage, language: language, body: body, idempotencyKey: idempotencyKey, sequence: sequence)
    }

    /// An uploader that has no use for the sequence number sends without it.
    public func upload(stage: String, language: String, body: ByteBuffer, idempotencyKey: UUID, sequence: UInt64) async -> UploadOutcome {
        await upload(stage: stage, language: language, body: body, idempotencyKey: idempotencyKey)
    }
}

import Entities
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Networking
public import NIOCore

/// Uploads through the survey client and sorts what happened into an ``UploadOutcome``.
public struct ClientUploader: AnswerUploader {
    let client: SurveyClient

    public init(client: SurveyClient) { self.client = client }

    /// Sends the queued body as it was stored (it was encoded by `AnswersUpload.encoded()` when
    /// the stage completed), so every attempt carries the same bytes, in the buffer the queue
    /// read them into.
    public func upload(stage: String, language: String, body: ByteBuffer, idempotencyKey: UUID) async -> UploadOutcome {
        await send(stage: stage, language: language, body: body, idempotencyKey: idempotencyKey, sequence: nil)
    }

    public func upload(stage: String, language: String, body: ByteBuffer, idempotencyKey: UUID, sequence: UInt64) async -> UploadOutcome {
        await send(stage: stage, language: language, body: body, idempotencyKey: idempotencyKey, sequence: sequence)
    }

    public func upload(stage: String, language: String, body: ByteBuffer, idempotencyKey: UUID, sequence: UInt64, consent: String?) async -> UploadOutcome {
        await send(stage: stage, language: language, body: body, idempotencyKey: idempotencyKey, sequence: sequence, consent: consent)
    }

    private func send(stage: String, language: String, body: ByteBuffer, idempotencyKey: UUID, sequence: UInt64?, consent: String? = nil) async -> UploadOutcome {
        do {
            let result = try await client.uploadAnswers(typeID: stage, lang: language, body: body, idempotencyKey: idempotencyKey.text(uppercase: false), sequence: sequence, consent: consent)
            return .delivered(nextTypeId: result.nextTypeId)
        } catch {
            return Self.outcome(error)
        }
    }

    /// `rejected` only when the server answered and refused the submission itself
    /// (`isSuccess: false`, a 4xx other than 401/403, in JSON): an idempotent server then holds
    /// that refusal under the key, never an accepted submission (an earlier attempt it accepted
    /// would have been replayed). A 401/403 in JSON (the survey client has read the token file
    /// again first) says nothing of the submission: it is `unauthorized`, and the worker pauses
    /// delivery instead of making every queued submission a dead letter. A 4xx that is not JSON
    /// never gets here as a refusal: the client took it for something in the server's way.
    static func outcome(_ error: NetworkError) -> UploadOutcome {
        if error.code == .offline { return .offline }
        // A portal, or a certificate the clock or its dates make unusable: nothing was decided.
        switch error.obstacle {
        case .portal?: return .notTheServer(reason: error.message)
        case .clockNotSet?, .certificateExpired?: return .certificate(reason: error.message)
        case nil: break
        }
        if error.code == .undecodableResponse { return .unknown(reason: error.status.map { "HTTP \($0): \(error.message)" } ?? error.message) }
        if error.isTransient, let status = error.status, status == 429 || status == 503 {
            return .overloaded(reason: error.message, status: status, retryAfter: error.retryAfter)
        }
        if error.isTransient { return .transient(reason: error.message, retryAfter: error.retryAfter) }
        if let status = error.status, status == 401 || status == 403 {
            return .unauthorized(status: status, reason: error.message)
        }
        let reason = error.status.map { "HTTP \($0): \(error.message)" } ?? error.message
        switch error.code {
        case .rejectedAnswers: return .rejected(reason: reason)
        case .rejectedRequest where error.status != nil: return .rejected(reason: reason)
        default: return .permanent(reason: reason)
        }
    }
}

extension RetryPolicy {
    /// The delivery worker's backoff (its attempts count from 1, the policy's from 0): full jitter from the system's random generator.
    public var backoff: @Sendable (Int, Duration?) -> Duration {
        { attempt, retryAfter in
            var generator = SystemRandomNumberGenerator()
            return self.delay(attempt: attempt - 1, retryAfter: retryAfter, using: &generator)
        }
    }
}

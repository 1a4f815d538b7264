#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Entities
import Logging
public import Storage

/// Completed stages: queued, waited for briefly, and moved on once their delivery is known.
extension SessionManager {
    /// Called by the delivery worker when a submission's fate is known.
    ///
    /// The answer waiting for it (or about to) takes it through the ``DeliveryRendezvous``.
    /// When none does (the respondent left with `queued`, or the daemon restarted meanwhile), it
    /// is recorded on its session here.
    public nonisolated func deliveryFinished(key: UUID, state: SubmissionState) async {
        if deliveries.deliver(key, state) { return }
        await recordDelivery(key: key, state: state)
    }

    /// Records a delivery that no answer waits for on the session that completed the stage: a
    /// follow-up the server named for a session closed as `queued`, or the next step of a session
    /// still awaiting it.
    func recordDelivery(key: UUID, state: SubmissionState) async {
        guard let id = sessions.first(where: { $0.value.lastCompletedKey == key })?.key else { return }
        do {
            try await withSession(id) { session throws(SessionError) in
                guard session.lastCompletedKey == key else { return }
                switch (session.state, state) {
                case (.closed(.queued), .delivered(let next?)):
                    try await record([.followUpNamed(session: id, stage: next, at: now())], on: &session)
                case (.awaitingDelivery, _):
                    try await proceed(&session, after: state)
                default:
                    break
                }
                if case .closed(.queued) = session.state, case .delivered = state { noteUploadSettled(id) }
            }
        } catch where error.code == .noSuchSession {
            // Retired by a journal compaction meanwhile: nothing is left to record it on.
        } catch {
            logger.error("cannot record a delivery on its session", metadata: ["session": "\(id)", "error": "\(error)"])
        }
    }

    /// Queues the completed stage and waits briefly for its delivery. When it cannot be queued,
    /// the session stays complete and housekeeping queues it later.
    func completeStage(_ session: inout Session, key: UUID) async throws(SessionError) {
        deliveries.expect(key)
        do {
            try await queue.enqueue(submission(of: session, key: key))
        } catch {
            deliveries.cancel(key)
            throw SessionError(.queueFailed, "the answers are saved, but stage \(session.stage) could not be queued (\(error)); surveyd queues it again within a minute. Check `surveyctl status` for the queue and the journal.")
        }
        // While the answer waits, views and a delivery that comes too late for it see the session
        // awaiting its delivery; the session's lock stays held, so nothing else changes it.
        sessions[session.id] = session
        let state = await waitForDelivery(key: key)
        guard case .awaitingDelivery(key) = session.state else { return }
        try await proceed(&session, after: state ?? .pending)
    }

    /// The outcome of the delivery under `key`: the queue's when it knows one already, else the
    /// one that arrives within ``Settings/deliveryWait``; nil when none did.
    func waitForDelivery(key: UUID) async -> SubmissionState? {
        if let known = try? await queue.state(of: key), known != .pending {
            return deliveries.cancel(key) ?? known
        }
        return await deliveries.wait(for: key, timeout: settings.deliveryWait, clock: clock)
    }

    /// What happens once a completed stage is delivered (or not in time).
    func proceed(_ session: inout Session, after state: SubmissionState) async throws(SessionError) {
        switch state {
        case .delivered(let next?):
            do {
                let definition = try await loadDefinition(stage: next, language: session.language, earlierAnswers: Set(session.allAnswers.keys))
                let event = SessionEvent.stageStarted(session: session.id, stage: next, language: session.language, definitionHash: definition.hash, at: now())
                try await recordStart(event, definition, on: &session)
            } catch {
                // The follow-up cannot be asked now: record it on the session, which ends as queued.
                logger.warning("follow-up stage unavailable", metadata: ["session": "\(session.id)", "stage": "\(next)", "error": "\(error)"])
                try await record([.followUpNamed(session: session.id, stage: next, at: now())], on: &session)
                try await close(&session, .queued)
            }
        case .delivered(nil):
            try await close(&session, .thanks)
        case .pending, .dead:
            try await close(&session, .queued)
        }
    }

    /// The upload of `session`'s completed stage under `key`.
    func submission(of session: Session, key: UUID) -> SubmissionRequest {
        SubmissionRequest(
            session: session.id, stage: session.stage, language: session.language,
            body: session.upload.encoded(), idempotencyKey: key,
            definitionHash: session.definitionHash, queuedAt: now(),
            headers: uploadHeaders(of: session)
        )
    }
}

extension SessionManager {
    /// The name of the header carrying the version of the consent notice the respondent agreed to.
    public static let consentHeader = "Survey-Consent"

    /// The headers `session`'s upload is sent with beside the contract's: the version of the
    /// consent notice the respondent agreed to (`Survey-Consent`), and the stage's paradata and
    /// quality flags (`Survey-Paradata`, `Survey-Quality`). Stored with the queued upload.
    func uploadHeaders(of session: Session) -> [String: String] {
        var headers = Dictionary(session.lastQuality?.headers.map { ($0.name, $0.value) } ?? [], uniquingKeysWith: { $1 })
        if let consent = session.consent { headers[Self.consentHeader] = consent }
        return headers
    }
}

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One event of `GET /v1/events`, a line of newline-delimited JSON. Events say what happened to
/// sessions, submissions and connectivity; they never carry answer contents.
public struct DaemonEvent: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// The first event of every stream: the daemon's version; nothing happened.
        case hello
        case sessionStarted = "session_started"
        /// An answer (or a skip) was journaled.
        case answerAccepted = "answer_accepted"
        /// A finished stage was queued for delivery.
        case stageQueued = "stage_queued"
        case sessionClosed = "session_closed"
        case delivered
        /// An upload failed for now and will be tried again.
        case retryScheduled = "retry_scheduled"
        /// A submission became a dead letter.
        case dead
        case connectivityChanged = "connectivity_changed"
        /// Delivery paused: the server refused the token (`outcome` says so).
        case paused
        /// Delivery resumed (`outcome` says why).
        case resumed
        /// Someone acted on the kiosk from its staff screen or the control API (`action` says
        /// what, `by` who: `staff` or `operator`); never a PIN or its digits.
        case staffAction = "staff_action"
        /// A kiosk respondent declined the consent notice; no session was started, nothing of
        /// theirs is kept.
        case consentDeclined = "consent_declined"
    }

    public var type: Kind
    /// When it happened, ISO 8601 in UTC.
    public var at: String
    public var session: String?
    public var stage: String?
    /// The question answered (its name only).
    public var question: String?
    public var skipped: Bool?
    /// The idempotency key of a queued, delivered or dead submission.
    public var key: String?
    /// `session_closed`: the outcome; `delivered`: the next stage the server named, if any.
    public var outcome: String?
    public var next: String?
    /// `connectivity_changed`: `online`, `offline`, `portal` (something else answers in the
    /// survey server's place), `clock_not_set` or `certificate_expired` (the server's certificate
    /// cannot be used).
    public var connectivity: String?
    /// `hello`: the daemon's version.
    public var version: String?
    /// `staff_action`: what was done, e.g. `out_of_service`, `in_service`, `send_now`,
    /// `survey_switched`, `pin_wrong`, `pin_locked`, `pin_unlocked`, `staff_entered`.
    public var action: String?
    /// `staff_action`: `staff` (the kiosk's staff screen) or `operator` (the control API).
    public var by: String?
    /// `stage_queued`: the quality flags the stage raised (`speeding`, `straight_lining`,
    /// `rapid_repeat`, `burst`, `mechanical`); empty when none, absent when quality is not judged.
    public var flags: [String]?

    public init(
        _ type: Kind, at: Date = Date(), session: String? = nil, stage: String? = nil, question: String? = nil, skipped: Bool? = nil,
        key: String? = nil, outcome: String? = nil, next: String? = nil, connectivity: String? = nil, version: String? = nil,
        action: String? = nil, by: String? = nil
    ) {
        self.action = action
        self.by = by
        self.type = type
        self.at = at.iso8601Seconds
        self.session = session
        self.stage = stage
        self.question = question
        self.skipped = skipped
        self.key = key
        self.outcome = outcome
        self.next = next
        self.connectivity = connectivity
        self.version = version
    }

    /// The event as one line of text, for `surveyctl watch`.
    public var line: String {
        var parts = [at, type.rawValue]
        if let session { parts.append("session \(session.prefix(8))") }
        if let stage { parts.append("stage \(stage)") }
        if let question { parts.append("question \(question)\(skipped == true ? " (skipped)" : "")") }
        if let key { parts.append("key \(key)") }
        if let outcome { parts.append(outcome) }
        if let next { parts.append("next stage \(next)") }
        if let connectivity { parts.append(connectivity) }
        if let version { parts.append("surveyd \(version)") }
        if let action { parts.append(action + (by.map { " by \($0)" } ?? "")) }
        if let flags, !flags.isEmpty { parts.append("flagged " + flags.joined(separator: ",")) }
        return parts.joined(separator: "  ")
    }
}

import Entities
import Foundation

/// A questionnaire and the content hash of the bytes it was decoded from.
public struct LoadedDefinition: Sendable, Hashable {
    public var questionnaire: Questionnaire
    public var hash: String

    public init(questionnaire: Questionnaire, hash: String) {
        self.questionnaire = questionnaire
        self.hash = hash
    }
}

/// Where sessions get their questionnaires.
public protocol DefinitionSource: Sendable {
    /// The questionnaire of a stage: from the server when it is reachable (refreshing the
    /// cache), else from the cache. Throws a `ControlError` saying what to do when neither works.
    func definition(stage: String, language: String, knownAnswerNames: Set<String>) async throws -> LoadedDefinition
    /// A cached questionnaire by content hash, to rebuild sessions on start; nil when not cached.
    func cachedDefinition(hash: String, stage: String, knownAnswerNames: Set<String>) async throws -> LoadedDefinition?
}

/// The durable record of session events.
public protocol SessionJournal: Sendable {
    /// Appends events; returns only once they are durable.
    func append(_ events: [SessionEvent]) async throws
    /// Every event journaled so far, in order (after the newest compaction, what it kept).
    func replay() async throws -> [SessionEvent]
    /// Replaces everything journaled with `sessions` (each one's events, in order) and frees the
    /// space the rest took. Nothing is appended while it runs.
    func compact(keeping sessions: [[SessionEvent]]) async throws
}

/// A finished stage to upload.
public struct SubmissionRequest: Sendable, Hashable {
    public var session: UUID
    public var stage: String
    public var language: String
    /// The upload body, `{"answers": {...}}`.
    public var body: Data
    public var idempotencyKey: UUID
    public var definitionHash: String
    public var queuedAt: Date

    public init(session: UUID, stage: String, language: String, body: Data, idempotencyKey: UUID, definitionHash: String, queuedAt: Date) {
        self.session = session
        self.stage = stage
        self.language = language
        self.body = body
        self.idempotencyKey = idempotencyKey
        self.definitionHash = definitionHash
        self.queuedAt = queuedAt
    }
}

/// Where a submission stands.
public enum DeliveryState: Sendable, Hashable {
    case pending
    case delivered(nextTypeId: String?)
    case dead(reason: String)
}

/// The submission queue, as sessions see it.
public protocol SubmissionSink: Sendable {
    /// Queues a submission durably and wakes the delivery worker. A key already queued is not
    /// queued twice.
    func enqueue(_ submission: SubmissionRequest) async throws
    /// Where the submission with this key stands; nil when it was never queued.
    func state(of key: UUID) async throws -> DeliveryState?
}

public import Entities
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Storage

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
///
/// A questionnaire is decoded and checked once per content hash, whoever asks: the answers of
/// earlier stages its rules name are not checked here but listed in
/// `Questionnaire.externalReferences`, and the session manager checks them against the
/// session's answers when the stage starts.
public protocol DefinitionSource: Sendable {
    /// The questionnaire of a stage: from the server when it is reachable (refreshing the
    /// cache), else from the cache. Throws a ``DefinitionSourceError`` saying what to do when neither works.
    func definition(stage: String, language: String) async throws -> LoadedDefinition
    /// A cached questionnaire by content hash, to rebuild sessions on start; nil when not cached.
    func cachedDefinition(hash: String, stage: String) async throws -> LoadedDefinition?
    /// Stages whose newest questionnaire from the server has errors (sessions start from the
    /// last good copy meanwhile), for `surveyctl status`.
    func problems() async -> [DefinitionProblem]
}

extension DefinitionSource {
    public func problems() async -> [DefinitionProblem] { [] }
}

/// The survey server sent a questionnaire with errors for a stage: it was not used, and the
/// last good copy (if any) stays in use until the server sends a good one.
public struct DefinitionProblem: Sendable, Hashable {
    public var stage: String
    public var language: String
    /// What is wrong with the questionnaire, for the survey's owner.
    public var error: String
    /// When the server first sent this questionnaire.
    public var since: Date

    public init(stage: String, language: String, error: String, since: Date) {
        self.stage = stage
        self.language = language
        self.error = error
        self.since = since
    }
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
    /// The version of the consent notice the respondent agreed to; nil when none was asked.
    public var consent: String?

    public init(session: UUID, stage: String, language: String, body: Data, idempotencyKey: UUID, definitionHash: String, queuedAt: Date, consent: String? = nil) {
        self.consent = consent
        self.session = session
        self.stage = stage
        self.language = language
        self.body = body
        self.idempotencyKey = idempotencyKey
        self.definitionHash = definitionHash
        self.queuedAt = queuedAt
    }
}

/// The submission queue, as sessions see it.
public protocol SubmissionSink: Sendable {
    /// Queues a submission durably and wakes the delivery worker. A key already queued is not
    /// queued twice.
    func enqueue(_ submission: SubmissionRequest) async throws
    /// Where the submission with this key stands (delivered with the stage the server named
    /// next, if any); nil when it was never queued.
    func state(of key: UUID) async throws -> SubmissionState?
}

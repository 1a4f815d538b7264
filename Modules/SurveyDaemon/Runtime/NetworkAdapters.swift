import Entities
import Foundation
import Logging
import Networking
import NIOPosix
import Storage
import Synchronization

/// Questionnaires from the survey server (after its connectivity check), kept in the Storage
/// definition cache; the cache answers when the server cannot. The cache's file I/O (reads,
/// fsync'd writes) runs on NIO's blocking thread pool, never on a Swift concurrency thread.
///
/// The server usually sends the same bytes again: the decoded questionnaire is kept by content
/// hash (the cache itself writes nothing when the bytes are unchanged).
public struct ServerDefinitionSource: DefinitionSource {
    let client: SurveyClient
    let cache: DefinitionCache
    let logger: Logger
    let memo = Memo()

    /// Decoded definitions by (hash, stage, earlier answer names). Shared by copies of the source.
    final class Memo: Sendable {
        struct Key: Hashable {
            var hash: String
            var stage: String
            var knownAnswerNames: Set<String>
        }

        /// Decoded definitions kept at most; the memo starts over when it would hold more.
        static let capacity = 64
        let decoded = Mutex<[Key: LoadedDefinition]>([:])

        func decoded(_ key: Key) -> LoadedDefinition? { decoded.withLock { $0[key] } }

        func remember(_ definition: LoadedDefinition, for key: Key) {
            decoded.withLock {
                if $0.count >= Self.capacity { $0.removeAll(keepingCapacity: true) }
                $0[key] = definition
            }
        }
    }

    public init(client: SurveyClient, cache: DefinitionCache, logger: Logger) {
        self.client = client
        self.cache = cache
        self.logger = logger
    }

    public func definition(stage: String, language: String, knownAnswerNames: Set<String>) async throws -> LoadedDefinition {
        let fetched: Data
        do {
            fetched = try await client.fetchQuestionnaireResponse(typeID: stage, lang: language)
        } catch {
            guard error.isTransient || error.code == .offline else {
                if error.code == .rejectedRequest {
                    // A 404 (or a name that cannot be a stage): the stage does not exist; asking again will not help.
                    throw ControlError.notFound("no_such_stage", "the survey server has no questionnaire for stage \(stage) (\(language)): \(error.message); check the --type given to surveyctl start")
                }
                throw ControlError.unavailable("definition_unavailable", "the survey server refused the questionnaire of stage \(stage) (\(language)): \(error.message)")
            }
            guard let cached = try await NIOThreadPool.singleton.runIfActive({ [cache] in try cache.current(typeID: stage, language: language) }) else {
                throw ControlError.unavailable("definition_unavailable", "stage \(stage) (\(language)) is not cached and the survey server cannot be reached (\(error.code.rawValue)); connect surveyd to the server once so that it can cache the questionnaire, then start again")
            }
            logger.notice("using the cached questionnaire", metadata: ["stage": "\(stage)", "lang": "\(language)", "hash": "\(cached.hash)", "reason": "\(error.code.rawValue)"])
            return try decode(cached, stage: stage, knownAnswerNames: knownAnswerNames)
        }
        let bytes = [UInt8](fetched)
        let hash = DefinitionCache.hash(bytes)
        let definition = try decode(CachedDefinition(hash: hash, bytes: bytes), stage: stage, knownAnswerNames: knownAnswerNames)
        // Cached only once it decoded: a broken definition never replaces a good one.
        _ = try await NIOThreadPool.singleton.runIfActive { [cache] in try cache.store(typeID: stage, language: language, bytes: bytes) }
        return definition
    }

    public func cachedDefinition(hash: String, stage: String, knownAnswerNames: Set<String>) async throws -> LoadedDefinition? {
        if let known = memo.decoded(Memo.Key(hash: hash, stage: stage, knownAnswerNames: knownAnswerNames)) { return known }
        guard let cached = try await NIOThreadPool.singleton.runIfActive({ [cache] in try cache.definition(hash: hash) }) else { return nil }
        return try decode(cached, stage: stage, knownAnswerNames: knownAnswerNames)
    }

    /// The decoded questionnaire of `cached`, from the memo when these bytes were decoded before
    /// for the same stage and earlier answers.
    func decode(_ cached: CachedDefinition, stage: String, knownAnswerNames: Set<String>) throws -> LoadedDefinition {
        let key = Memo.Key(hash: cached.hash, stage: stage, knownAnswerNames: knownAnswerNames)
        if let known = memo.decoded(key) { return known }
        let definition = try Self.decode(cached, stage: stage, knownAnswerNames: knownAnswerNames)
        memo.remember(definition, for: key)
        return definition
    }

    static func decode(_ cached: CachedDefinition, stage: String, knownAnswerNames: Set<String>) throws -> LoadedDefinition {
        do {
            let questionnaire = try Questionnaire.decode(response: Data(cached.bytes), stage: stage, knownAnswerNames: knownAnswerNames)
            return LoadedDefinition(questionnaire: questionnaire, hash: cached.hash)
        } catch {
            throw ControlError.unavailable("definition_invalid", "the questionnaire of stage \(stage) has errors: \(error); fix the survey definition on the server")
        }
    }
}

/// Uploads through the survey client and sorts what happened into an ``UploadOutcome``.
public struct ClientUploader: AnswerUploader {
    let client: SurveyClient

    public init(client: SurveyClient) { self.client = client }

    /// Sends the queued body as it was stored (it was encoded by `AnswersUpload.encoded()` when
    /// the stage completed), so every attempt carries the same bytes.
    public func upload(stage: String, language: String, body: Data, idempotencyKey: UUID) async -> UploadOutcome {
        do {
            let result = try await client.uploadAnswers(typeID: stage, lang: language, body: body, idempotencyKey: idempotencyKey.text(uppercase: false))
            return .delivered(nextTypeId: result.nextTypeId)
        } catch {
            return Self.outcome(error)
        }
    }

    /// `rejected` only when the server answered and refused the submission itself
    /// (`isSuccess: false`, a 4xx other than 401/403): an idempotent server then holds that
    /// refusal under the key, never an accepted submission (an earlier attempt it accepted would
    /// have been replayed). A 401/403 comes before the server looks at the key, so whether an
    /// earlier attempt got through cannot be told: like an undecodable reply it is `permanent`
    /// with an unknown outcome, and a requeue keeps the key.
    static func outcome(_ error: NetworkError) -> UploadOutcome {
        if error.code == .offline { return .offline }
        if error.isTransient { return .transient(reason: error.message, retryAfter: error.retryAfter) }
        let reason = error.status.map { "HTTP \($0): \(error.message)" } ?? error.message
        switch error.code {
        case .rejectedAnswers: return .rejected(reason: reason)
        case .rejectedRequest where error.status != nil: return .rejected(reason: reason)
        default: return .permanent(reason: reason)
        }
    }
}

/// The connectivity monitor, as the control API shows it.
public struct MonitorConnectivity: ConnectivityObserver {
    let monitor: ConnectivityMonitor

    public init(monitor: ConnectivityMonitor) { self.monitor = monitor }

    public func current() async -> (online: Bool?, since: Date?) {
        let status = await monitor.status
        switch status.state {
        case .unknown: return (nil, nil)
        case .online: return (true, status.since)
        case .offline: return (false, status.since)
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

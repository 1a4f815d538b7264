import Entities
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Logging
public import Networking
import NIOPosix
public import Storage
import Synchronization

/// Questionnaires from the survey server (after its connectivity check), kept in the Storage
/// definition cache; the cache answers when the server cannot. The cache's file I/O (reads,
/// fsync'd writes) runs on NIO's blocking thread pool, never on a Swift concurrency thread.
///
/// - Every request for a stage and language fetches it again, and concurrent requests share one
///   fetch (``DefinitionFetches``).
/// - With a cached copy, a request waits for the server at most ``deadline`` (counted from the
///   start of the fetch) and then uses the copy; the fetch goes on and caches what it gets
///   (stale-while-revalidate). Without one, it waits for the fetch, up to the client's read
///   timeout.
/// - A questionnaire with errors is never cached: requests go on with the last good copy, and
///   ``problems()`` names the stage and the errors until the server sends a good one.
///
/// The server usually sends the same bytes again: the decoded questionnaire is kept by content
/// hash (the cache itself writes nothing when the bytes are unchanged). Decoding checks what the
/// questionnaire holds; the answers of earlier stages it names are the session's to check
/// (`Questionnaire.externalReferences`), so one decoded copy serves every session.
public struct ServerDefinitionSource: DefinitionSource {
    let client: SurveyClient
    let cache: DefinitionCache
    /// With a cached copy, how long after its fetch began a request stops waiting for the server.
    let deadline: Duration
    let now: @Sendable () -> Date
    let logger: Logger
    /// Counts the fetches and the requests the cache answered.
    let metrics: DaemonMetrics
    let memo = Memo()
    let shared: Shared

    /// What a fetch came to.
    enum FetchOutcome: Sendable {
        /// Checked and cached.
        case fetched(CachedDefinition)
        /// The questionnaire has errors (described); it was not cached.
        case invalid(String)
        case failed(NetworkError)
        /// Good, but it could not be cached (described), so sessions cannot be restored from it.
        case notStored(String)
    }

    /// The state copies of the source share: fetches in flight, the last good copy of each stage
    /// and language, and the problems met.
    final class Shared: Sendable {
        let fetches: DefinitionFetches<FetchOutcome>
        let lastGood = Mutex<[DefinitionKey: CachedDefinition]>([:])
        let problems = Mutex<[DefinitionKey: (problem: DefinitionProblem, hash: String)]>([:])

        init(clock: any Clock<Duration>) { fetches = DefinitionFetches(clock: clock) }
    }

    /// Decoded definitions by (hash, stage). Shared by copies of the source.
    final class Memo: Sendable {
        struct Key: Hashable {
            var hash: String
            var stage: String
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

    /// - Parameter deadline: with a cached copy, how long a request waits for the server
    ///   (`definitionFetchDeadlineSeconds`).
    /// - Parameter clock: what the deadline is measured and slept on.
    public init(client: SurveyClient, cache: DefinitionCache, deadline: Duration = .seconds(3), clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }, logger: Logger, metrics: DaemonMetrics = .disabled) {
        shared = Shared(clock: clock)
        self.metrics = metrics
        self.client = client
        self.cache = cache
        self.deadline = deadline
        self.now = now
        self.logger = logger
    }

    public func definition(stage: String, language: String) async throws -> LoadedDefinition {
        let key = DefinitionKey(stage: stage, language: language)
        let cached = await lastGood(key)
        let wait = await shared.fetches.outcome(of: key, deadline: cached == nil ? nil : deadline) { [self] in
            let outcome = await fetch(key)
            metrics.definitionFetched(outcome.metricsResult)
            return outcome
        }
        let outcome: FetchOutcome
        switch wait {
        case .outcome(.fetched(let fetched)):
            return try decode(fetched, stage: stage)
        case .outcome(let other):
            outcome = other
        case .gaveUp:
            guard let cached else {
                throw DefinitionSourceError(.unavailable, "surveyd is stopping; the questionnaire of stage \(stage) (\(language)) was not fetched")
            }
            logger.notice("the survey server is slow: using the cached questionnaire while the fetch goes on", metadata: ["stage": "\(stage)", "lang": "\(language)", "hash": "\(cached.hash)"])
            metrics.definitionCacheHit()
            return try decode(cached, stage: stage)
        }
        if case .failed(let error) = outcome, !(error.isTransient || error.code == .offline) {
            if error.code == .rejectedRequest {
                // A 404 (or a name that cannot be a stage): the stage does not exist; asking again will not help.
                throw DefinitionSourceError(.noSuchStage, "the survey server has no questionnaire for stage \(stage) (\(language)): \(error.message); check the --type given to surveyctl start")
            }
            throw DefinitionSourceError(.unavailable, "the survey server refused the questionnaire of stage \(stage) (\(language)): \(error.message)")
        }
        guard let cached else { throw Self.unavailable(outcome, stage: stage, language: language, readTimeout: await client.configuration.readTimeout) }
        if case .failed(let error) = outcome, error.obstacle != nil {
            logger.notice("something else answers in the survey server's place (a captive portal or a redirect): using the cached questionnaire", metadata: ["stage": "\(stage)", "lang": "\(language)", "hash": "\(cached.hash)", "answer": "\(error.message)"])
        } else {
            logger.notice("using the cached questionnaire", metadata: ["stage": "\(stage)", "lang": "\(language)", "hash": "\(cached.hash)", "reason": "\(Self.reason(outcome))"])
        }
        metrics.definitionCacheHit()
        return try decode(cached, stage: stage)
    }

    public func cachedDefinition(hash: String, stage: String) async throws -> LoadedDefinition? {
        if let known = memo.decoded(Memo.Key(hash: hash, stage: stage)) { return known }
        guard let cached = try await NIOThreadPool.singleton.runIfActive({ [cache] in try cache.definition(hash: hash) }) else { return nil }
        return try decode(cached, stage: stage)
    }

    public func problems() async -> [DefinitionProblem] {
        shared.problems.withLock { $0.values.map(\.problem) }.sorted { ($0.stage, $0.language) < ($1.stage, $1.language) }
    }

    /// Runs the fetches (in the daemon's service group) until ``stopFetches()``.
    func runFetches() async {
        await shared.fetches.run()
    }

    /// Stops the fetches in flight; later requests fetch inline (the daemon is shutting down).
    func stopFetches() async {
        await shared.fetches.stop()
    }

    /// Waits until no fetch is in flight (tests).
    func settleFetches() async {
        await shared.fetches.settle()
    }

    /// One fetch: the questionnaire from the server, checked, then cached (only once it decoded:
    /// a broken definition never replaces a good one). Runs once for every request that shares it.
    func fetch(_ key: DefinitionKey) async -> FetchOutcome {
        let body: Data
        do {
            body = try await client.fetchQuestionnaireResponse(typeID: key.stage, lang: key.language)
        } catch where error.code == .invalidDefinition {
            // Not the questionnaire envelope, while the server answers as itself otherwise: this
            // stage is broken on the server (an empty body, a page); the others go on.
            let description = error.message
            return invalid(key, description, hash: DefinitionCache.hash(Array(description.utf8)))
        } catch {
            return .failed(error)
        }
        let bytes = [UInt8](body)
        let fetched = CachedDefinition(hash: DefinitionCache.hash(bytes), bytes: bytes)
        do {
            _ = try decodeChecked(fetched, stage: key.stage)
        } catch {
            return invalid(key, "\(error)", hash: fetched.hash)
        }
        // A fetch cancelled at shutdown stores nothing.
        guard !Task.isCancelled else { return .notStored("surveyd is stopping") }
        do {
            _ = try await NIOThreadPool.singleton.runIfActive { [cache] in try cache.store(typeID: key.stage, language: key.language, bytes: bytes) }
        } catch {
            logger.error("a fetched questionnaire cannot be cached", metadata: ["stage": "\(key.stage)", "lang": "\(key.language)", "error": "\(error)"])
            return .notStored("\(error)")
        }
        shared.lastGood.withLock { $0[key] = fetched }
        if shared.problems.withLock({ $0.removeValue(forKey: key) }) != nil {
            logger.notice("the survey server sent a good questionnaire again", metadata: ["stage": "\(key.stage)", "lang": "\(key.language)", "hash": "\(fetched.hash)"])
        }
        return .fetched(fetched)
    }

    /// A questionnaire with errors (or one that came broken): named in ``problems()`` until a good
    /// one comes, never cached.
    private func invalid(_ key: DefinitionKey, _ description: String, hash: String) -> FetchOutcome {
        let since = now()
        shared.problems.withLock { problems in
            guard problems[key]?.hash != hash else { return }
            problems[key] = (DefinitionProblem(stage: key.stage, language: key.language, error: description, since: since), hash)
        }
        logger.error("the survey server sent a questionnaire with errors; the last good copy stays in use", metadata: ["stage": "\(key.stage)", "lang": "\(key.language)", "hash": "\(hash)", "error": "\(description)"])
        return .invalid(description)
    }

    /// The newest good copy of (stage, language): remembered, else read from the cache; nil
    /// when there is none (or the name cannot be cached: the fetch refuses it too).
    func lastGood(_ key: DefinitionKey) async -> CachedDefinition? {
        if let known = shared.lastGood.withLock({ $0[key] }) { return known }
        let stored: CachedDefinition?
        do {
            stored = try await NIOThreadPool.singleton.runIfActive { [cache] in try cache.current(typeID: key.stage, language: key.language) }
        } catch let error as StorageError where error.code == .notFound {
            return nil
        } catch {
            logger.warning("the cached questionnaire cannot be read", metadata: ["stage": "\(key.stage)", "lang": "\(key.language)", "error": "\(error)"])
            return nil
        }
        guard let stored else { return nil }
        // A fetch may have cached a newer copy meanwhile: keep that one.
        return shared.lastGood.withLock { lastGood in
            if let newer = lastGood[key] { return newer }
            lastGood[key] = stored
            return stored
        }
    }

    /// The error of a request with no cached copy whose fetch did not give a good questionnaire.
    static func unavailable(_ outcome: FetchOutcome, stage: String, language: String, readTimeout: Duration) -> DefinitionSourceError {
        switch outcome {
        case .invalid(let description):
            return DefinitionSourceError(.invalid, "the questionnaire of stage \(stage) (\(language)) has errors: \(description); fix the survey definition on the server (no earlier good copy is cached)")
        case .notStored(let description):
            return DefinitionSourceError(.unavailable, "the questionnaire of stage \(stage) (\(language)) could not be cached (\(description)); check the state directory's free space and permissions, then start again")
        case .failed(let error) where error.code == .timeout:
            return DefinitionSourceError(.unavailable, "stage \(stage) (\(language)) is not cached and the survey server did not send it within its read timeout (\(readTimeout.components.seconds) s); check the server, then start again")
        case .failed(let error) where error.code == .notTheServer:
            return DefinitionSourceError(.unavailable, "stage \(stage) (\(language)) is not cached and something else answers in the survey server's place (a captive portal or a redirect): \(error.message)")
        case .failed(let error) where error.code == .clockNotSet || error.code == .certificateExpired:
            return DefinitionSourceError(.unavailable, "stage \(stage) (\(language)) is not cached and the survey server's certificate cannot be used: \(error.message)")
        case .failed(let error):
            return DefinitionSourceError(.unavailable, "stage \(stage) (\(language)) is not cached and the survey server cannot be reached (\(error.code.rawValue)); connect surveyd to the server once so that it can cache the questionnaire, then start again")
        case .fetched:
            return DefinitionSourceError(.unavailable, "the questionnaire of stage \(stage) (\(language)) was fetched but taken for a failure; start again")
        }
    }

    static func reason(_ outcome: FetchOutcome) -> String {
        switch outcome {
        case .fetched: "fetched"
        case .invalid: "invalid_definition"
        case .notStored: "not_cached"
        case .failed(let error): error.code.rawValue
        }
    }

    /// The decoded questionnaire of `cached`, or an `invalid` ``DefinitionSourceError``.
    func decode(_ cached: CachedDefinition, stage: String) throws(DefinitionSourceError) -> LoadedDefinition {
        do {
            return try decodeChecked(cached, stage: stage)
        } catch {
            throw DefinitionSourceError(.invalid, DefinitionSourceError.invalidMessage(stage: stage, error))
        }
    }

    /// The decoded questionnaire of `cached`, from the memo when these bytes were decoded before
    /// for the same stage; throws the definition's errors. References to earlier stages'
    /// answers are left to the caller.
    func decodeChecked(_ cached: CachedDefinition, stage: String) throws(DefinitionErrors) -> LoadedDefinition {
        let key = Memo.Key(hash: cached.hash, stage: stage)
        if let known = memo.decoded(key) { return known }
        let questionnaire = try Questionnaire.decodeDeferringReferences(response: Data(cached.bytes), stage: stage)
        let definition = LoadedDefinition(questionnaire: questionnaire, hash: cached.hash)
        memo.remember(definition, for: key)
        return definition
    }
}

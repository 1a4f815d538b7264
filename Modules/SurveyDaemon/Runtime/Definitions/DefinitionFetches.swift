import ServiceLifecycle

/// A stage in one language: what a questionnaire is fetched and cached for.
struct DefinitionKey: Hashable, Sendable {
    var stage: String
    var language: String
}

/// The questionnaire fetches in flight: at most one per stage and language, which every caller
/// asking for that pair meanwhile shares (no second request while one runs).
///
/// A caller may stop waiting after a deadline counted from the start of the fetch (a session
/// with a cached copy starts from it); the fetch goes on without it and its work (checking and
/// caching what came) is done by the fetch itself.
///
/// Fetches run as child tasks of ``run()``, which ``DefinitionFetchesService`` runs in the
/// daemon's service group. ``stop()`` (at the graceful shutdown) lets every caller go and makes
/// ``run()`` cancel the fetches in flight (a cancelled fetch stores nothing) and return once they
/// have ended. While ``run()`` is not running (before it starts, after the stop, or where no
/// service runs it), a call fetches inline, in the caller's task, and waits for the outcome. A
/// caller's deadline is a child task of the caller.
actor DefinitionFetches<Outcome: Sendable> {
    /// What a caller gets: the fetch's outcome, or nothing because it gave up waiting (its
    /// deadline passed, or the daemon is stopping).
    enum Wait: Sendable {
        case outcome(Outcome)
        case gaveUp
    }

    /// A fetch for ``run()`` to run.
    private struct Job: Sendable {
        var key: DefinitionKey
        var id: Int
        var fetch: @Sendable () async -> Outcome
    }

    private struct Flight {
        var id: Int
        /// On ``timeline``.
        var startedAt: Duration
        var waiters: [Int: CheckedContinuation<Wait, Never>] = [:]
    }

    private enum State {
        /// Not run yet: calls fetch inline.
        case waiting
        case running
        case stopped
    }

    private var state = State.waiting
    private var flights: [DefinitionKey: Flight] = [:]
    private let jobs: AsyncStream<Job>
    private let submit: AsyncStream<Job>.Continuation
    /// Fetches handed to ``run()`` that have not ended yet (stopped ones included).
    private(set) var unfinished = 0
    private var settling: [CheckedContinuation<Void, Never>] = []
    private var nextID = 0
    /// The injected clock the callers' deadlines are measured and slept on (a `ContinuousClock`
    /// in the daemon).
    private let timeline: Timeline

    init(clock: any Clock<Duration> = ContinuousClock()) {
        (jobs, submit) = AsyncStream.makeStream(of: Job.self)
        timeline = Timeline(clock)
    }

    /// Fetches in flight now.
    var inFlight: Int { flights.count }

    /// Whether ``run()`` runs the fetches (rather than the callers, inline).
    var isRunning: Bool {
        if case .running = state { true } else { false }
    }

    /// Runs the fetches, each as a child task, until ``stop()`` or cancellation; then cancels
    /// those still running and returns once they have ended. Runs once.
    func run() async {
        guard case .waiting = state else { return }
        state = .running
        await withDiscardingTaskGroup { group in
            for await job in jobs {
                // Handed over before the stop but not started: nobody waits for it any more.
                guard case .running = state else {
                    ended()
                    continue
                }
                group.addTask {
                    let outcome = await job.fetch()
                    await self.finished(job.key, flight: job.id, outcome)
                }
            }
            group.cancelAll()
        }
        // Every fetch that ran has ended; those handed over but never started (cancelled
        // before the stop) will not run: their callers go.
        unfinished = 0
        stop()
    }

    /// The outcome of the fetch of `key`: the one in flight, or a new one running `fetch`.
    ///
    /// - Parameter deadline: how long after the fetch began the caller stops waiting; nil waits
    ///   for the outcome. A caller that comes when the fetch has run longer gives up at once.
    func outcome(of key: DefinitionKey, deadline: Duration?, fetch: @escaping @Sendable () async -> Outcome) async -> Wait {
        guard case .running = state else { return .outcome(await fetch()) }
        let flight = flights[key] ?? start(key, fetch)
        let waiter = nextID
        nextID += 1
        guard let deadline else { return await wait(key, waiter: waiter) }
        let left = deadline - (timeline.elapsed() - flight.startedAt)
        guard left > .zero else { return .gaveUp }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Cancelled when the fetch finished first.
                guard (try? await self.timeline.sleep(left)) != nil else { return }
                await self.timedOut(key, flight: flight.id, waiter: waiter)
            }
            let wait = await wait(key, waiter: waiter)
            group.cancelAll()
            return wait
        }
    }

    /// Waits for the flight of `key` (there is one: nothing suspends between its start and this).
    private func wait(_ key: DefinitionKey, waiter: Int) async -> Wait {
        await withCheckedContinuation { continuation in
            if flights[key] == nil {
                continuation.resume(returning: .gaveUp)
            } else {
                flights[key]?.waiters[waiter] = continuation
            }
        }
    }

    private func start(_ key: DefinitionKey, _ fetch: @escaping @Sendable () async -> Outcome) -> Flight {
        let id = nextID
        nextID += 1
        let flight = Flight(id: id, startedAt: timeline.elapsed())
        flights[key] = flight
        unfinished += 1
        submit.yield(Job(key: key, id: id, fetch: fetch))
        return flight
    }

    private func finished(_ key: DefinitionKey, flight id: Int, _ outcome: Outcome) {
        ended()
        guard let flight = flights[key], flight.id == id else { return }
        flights[key] = nil
        for waiter in flight.waiters.values { waiter.resume(returning: .outcome(outcome)) }
    }

    private func ended() {
        unfinished -= 1
        if unfinished == 0 { settled() }
    }

    private func settled() {
        for waiter in settling { waiter.resume() }
        settling = []
    }

    private func timedOut(_ key: DefinitionKey, flight id: Int, waiter: Int) {
        guard flights[key]?.id == id, let continuation = flights[key]?.waiters.removeValue(forKey: waiter) else { return }
        continuation.resume(returning: .gaveUp)
    }

    /// Lets every caller go and makes ``run()`` cancel the fetches in flight (each stores nothing
    /// once cancelled) and return; later calls fetch inline.
    func stop() {
        state = .stopped
        submit.finish()
        let stopping = flights
        flights = [:]
        for flight in stopping.values {
            for waiter in flight.waiters.values { waiter.resume(returning: .gaveUp) }
        }
        if unfinished == 0 { settled() }
    }

    /// Waits until no fetch is in flight, nor any stopped one finishing (tests).
    func settle() async {
        guard unfinished > 0 else { return }
        await withCheckedContinuation { settling.append($0) }
    }
}

/// Runs the questionnaire fetches (``DefinitionFetches/run()``) in the daemon's service group;
/// at the graceful shutdown (or its cancellation) it stops them and returns once none is left,
/// so that none outlives the daemon.
struct DefinitionFetchesService: Service {
    let source: ServerDefinitionSource

    func run() async throws {
        async let fetches: Void = source.runFetches()
        try? await gracefulShutdown()
        await source.stopFetches()
        await fetches
    }
}

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
/// caching what came) is done by the fetch itself. Fetches are unstructured tasks; the
/// ``DefinitionFetchesService`` stops them when the daemon shuts down: they are cancelled (a
/// cancelled fetch stores nothing) and later calls fetch inline, in the caller's task.
actor DefinitionFetches<Outcome: Sendable> {
    /// What a caller gets: the fetch's outcome, or nothing because it gave up waiting (its
    /// deadline passed, or the daemon is stopping).
    enum Wait: Sendable {
        case outcome(Outcome)
        case gaveUp
    }

    private struct Flight {
        var id: Int
        var task: Task<Void, Never>
        var startedAt: ContinuousClock.Instant
        var waiters: [Int: CheckedContinuation<Wait, Never>] = [:]
        var timers: [Int: Task<Void, Never>] = [:]
    }

    private enum State {
        case running
        case stopped
    }

    private var state = State.running
    private var flights: [DefinitionKey: Flight] = [:]
    /// Fetches cancelled by ``stop()`` that may still be finishing.
    private var stopped: [Task<Void, Never>] = []
    private var nextID = 0
    private let clock = ContinuousClock()

    init() {}

    /// Fetches in flight now.
    var inFlight: Int { flights.count }

    /// The outcome of the fetch of `key`: the one in flight, or a new one running `fetch`.
    ///
    /// - Parameter deadline: how long after the fetch began the caller stops waiting; nil waits
    ///   for the outcome. A caller that comes when the fetch has run longer gives up at once.
    func outcome(of key: DefinitionKey, deadline: Duration?, fetch: @escaping @Sendable () async -> Outcome) async -> Wait {
        guard case .running = state else { return .outcome(await fetch()) }
        let flight = flights[key] ?? start(key, fetch)
        var remaining: Duration?
        if let deadline {
            let left = deadline - (clock.now - flight.startedAt)
            guard left > .zero else { return .gaveUp }
            remaining = left
        }
        let waiter = nextID
        nextID += 1
        return await withCheckedContinuation { continuation in
            flights[key]?.waiters[waiter] = continuation
            if let remaining {
                flights[key]?.timers[waiter] = Task {
                    do {
                        try await Task.sleep(for: remaining)
                    } catch {
                        return  // the fetch finished first
                    }
                    self.timedOut(key, flight: flight.id, waiter: waiter)
                }
            }
        }
    }

    private func start(_ key: DefinitionKey, _ fetch: @escaping @Sendable () async -> Outcome) -> Flight {
        let id = nextID
        nextID += 1
        let task = Task {
            let outcome = await fetch()
            self.finished(key, flight: id, outcome)
        }
        let flight = Flight(id: id, task: task, startedAt: clock.now)
        flights[key] = flight
        return flight
    }

    private func finished(_ key: DefinitionKey, flight id: Int, _ outcome: Outcome) {
        guard let flight = flights[key], flight.id == id else { return }
        flights[key] = nil
        for timer in flight.timers.values { timer.cancel() }
        for waiter in flight.waiters.values { waiter.resume(returning: .outcome(outcome)) }
    }

    private func timedOut(_ key: DefinitionKey, flight id: Int, waiter: Int) {
        guard flights[key]?.id == id, let continuation = flights[key]?.waiters.removeValue(forKey: waiter) else { return }
        flights[key]?.timers[waiter] = nil
        continuation.resume(returning: .gaveUp)
    }

    /// Cancels every fetch in flight (each stores nothing once cancelled; its request ends with
    /// the HTTP client's shutdown at the latest) and lets their callers go; later calls fetch
    /// inline.
    func stop() {
        state = .stopped
        let stopping = flights
        flights = [:]
        for flight in stopping.values {
            flight.task.cancel()
            stopped.append(flight.task)
            for timer in flight.timers.values { timer.cancel() }
            for waiter in flight.waiters.values { waiter.resume(returning: .gaveUp) }
        }
    }

    /// Waits until no fetch is in flight, nor any stopped one finishing (tests).
    func settle() async {
        while let task = flights.values.first?.task ?? stopped.popLast() { await task.value }
    }
}

/// Stops the questionnaire fetches in flight when the daemon shuts down, so that none outlives
/// it. Runs until the graceful shutdown (or its cancellation).
struct DefinitionFetchesService: Service {
    let source: ServerDefinitionSource

    func run() async throws {
        try? await gracefulShutdown()
        await source.stopFetches()
    }
}

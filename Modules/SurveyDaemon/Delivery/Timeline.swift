/// An injected clock, read as the time elapsed since the timeline began. Deadlines kept as such
/// durations need no knowledge of the clock's instant type, so a service can take
/// `some Clock<Duration>` (a `ContinuousClock` in the daemon, a manual clock in tests) without
/// becoming generic itself.
struct Timeline: Sendable {
    /// The time elapsed on the clock since the timeline was made.
    let elapsed: @Sendable () -> Duration
    /// Sleeps on the clock; throws when the task is cancelled.
    let sleep: @Sendable (Duration) async throws -> Void

    init(_ clock: any Clock<Duration>) {
        self = Self.reading(clock)
    }

    /// The clock's own instant type, opened: the closures capture the clock and its origin.
    private static func reading(_ clock: some Clock<Duration>) -> Timeline {
        let origin = clock.now
        return Timeline(elapsed: { origin.duration(to: clock.now) }, sleep: { duration in try await clock.sleep(for: duration) })
    }

    private init(elapsed: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.elapsed = elapsed
        self.sleep = sleep
    }
}

extension Duration {
    /// The duration in seconds, its fraction included.
    var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

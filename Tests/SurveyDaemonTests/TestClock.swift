import Foundation
import SurveyTesting
import Synchronization

/// A wall clock and a monotonic clock that move only when the test moves them: ``advance(_:)``
/// moves both (time passes), ``stepWall(_:)`` the wall clock alone (NTP or an operator set it).
final class TestClock: Sendable {
    private struct State {
        var wall = Date(timeIntervalSince1970: 1_800_000_000)
        var elapsed = Duration.zero
    }

    private let state = Mutex(State())

    /// The wall clock.
    func now() -> Date { state.withLock { $0.wall } }

    /// Time passes: both clocks move on by `seconds`.
    func advance(_ seconds: TimeInterval) {
        state.withLock {
            $0.wall += seconds
            $0.elapsed += .seconds(seconds)
        }
    }

    /// The wall clock is set `seconds` later (earlier when negative); the monotonic one stays.
    func stepWall(_ seconds: TimeInterval) { state.withLock { $0.wall += seconds } }

    /// The monotonic clock's reading.
    var elapsed: Duration { state.withLock { $0.elapsed } }

    /// The monotonic clock, for the parts that take `some Clock<Duration>`.
    var monotonic: Monotonic { Monotonic(clock: self) }

    /// Reads ``TestClock/elapsed``. A sleep lasts its duration in real time, less what the test
    /// advanced the clock meanwhile (so a short delivery wait still ends by itself).
    struct Monotonic: Clock {
        let clock: TestClock
        var now: ManualClock.Instant { ManualClock.Instant(offset: clock.elapsed) }
        var minimumResolution: Duration { .zero }

        func sleep(until deadline: ManualClock.Instant, tolerance: Duration?) async throws {
            let real = ContinuousClock.now
            let length = now.duration(to: deadline)
            // A deadline the clock has passed already (the test moved it on meanwhile) is no wait.
            guard length > .zero else { return try Task.checkCancellation() }
            // Bounded: one round per 5 ms of the sleep's length in real time.
            for _ in 0...(Int(length.components.seconds) * 200 + 200) {
                if now >= deadline || real.duration(to: .now) >= length { return }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }
}

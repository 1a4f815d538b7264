import Foundation
import Synchronization

/// A clock that sleeps as `ContinuousClock` does and keeps what it was asked: the length of
/// every sleep, in order, and the sleeps still waiting (the timers armed now).
final class RecordingClock: Clock, Sendable {
    typealias Instant = ContinuousClock.Instant
    typealias Duration = Swift.Duration

    private struct State {
        var next = 0
        var waiting: [Int: Duration] = [:]
        var requested: [Duration] = []
        var deadlines: [Instant] = []
    }

    private let base = ContinuousClock()
    private let state = Mutex(State())

    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let length = base.now.duration(to: deadline)
        let id = state.withLock { state in
            defer { state.next += 1 }
            state.waiting[state.next] = length
            state.requested.append(length)
            state.deadlines.append(deadline)
            return state.next
        }
        defer { _ = state.withLock { $0.waiting.removeValue(forKey: id) } }
        try await base.sleep(until: deadline, tolerance: tolerance)
    }

    /// The lengths of the sleeps waiting now, shortest first.
    var waiting: [Duration] { state.withLock { $0.waiting.values.sorted() } }

    /// How many sleeps were asked for so far.
    var count: Int { state.withLock { $0.requested.count } }

    /// The lengths of the sleeps asked for after the first `count`.
    func requested(after count: Int) -> [Duration] { state.withLock { Array($0.requested.dropFirst(count)) } }

    /// The shortest time between two distinct deadlines of the sleeps asked for after the first
    /// `count` (a timer's period, however late its sleep was asked for); nil with fewer than two.
    func shortestPeriod(after count: Int) -> Duration? {
        let deadlines = state.withLock { Array(Set($0.deadlines.dropFirst(count))).sorted() }
        return zip(deadlines, deadlines.dropFirst()).map { $0.duration(to: $1) }.min()
    }
}

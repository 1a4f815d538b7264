import Foundation
import Synchronization

/// A clock that moves only when the test advances it: a sleep ends once the clock passes its
/// deadline, or at once when its task is cancelled.
final class ManualClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: UUID
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        /// Sleeps cancelled before they parked.
        var cancelled: Set<UUID> = []
    }

    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// Sleeps waiting for the clock to move.
    var sleeping: Int { state.withLock { $0.sleepers.count } }

    /// When the waiting sleeps end, from the clock's start, earliest first.
    var deadlines: [Duration] { state.withLock { $0.sleepers.map(\.deadline.offset).sorted() } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let verdict: Result<Bool, CancellationError> = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(true) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .success(false)
                }
                switch verdict {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(true): continuation.resume()
                case .success(false): break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `duration` and wakes the sleeps whose deadline it passed.
    func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Waits (boundedly) until `count` sleeps wait for the clock.
    func waitForSleepers(_ count: Int) async throws {
        for _ in 0..<5000 where sleeping < count { try await Task.sleep(for: .milliseconds(1)) }
        guard sleeping >= count else { throw Stuck(expected: count, found: sleeping) }
    }

    struct Stuck: Error, CustomStringConvertible {
        var expected: Int
        var found: Int
        var description: String { "expected \(expected) sleeps on the manual clock, found \(found)" }
    }
}

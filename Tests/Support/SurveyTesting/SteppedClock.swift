import Foundation
import Synchronization

/// A monotonic clock for tests (the kiosk's and the daemon's) that moves only when the test advances it, counting the sleeps asked of it: a sleep
/// ends once the clock passes its deadline, or at once when its task is cancelled.
public final class SteppedClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var cancelled: Set<Int> = []
        var asked = 0
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }
    /// Sleeps waiting now.
    public var sleeping: Int { state.withLock { $0.sleepers.count } }
    /// Sleeps asked since the start: each one a timer the code set.
    public var sleepsAsked: Int { state.withLock { $0.asked } }
    /// When the waiting sleeps end, from the clock's start, earliest first.
    public var deadlines: [Duration] { state.withLock { $0.sleepers.map(\.deadline.offset).sorted() } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            state.asked += 1
            return state.asked
        }
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
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Waits (boundedly, 5 s) until `count` sleeps wait for the clock.
    public func waitForSleepers(_ count: Int) async throws {
        for _ in 0..<5000 where sleeping < count { try await Task.sleep(for: .milliseconds(1)) }
        guard sleeping >= count else { throw Stuck("expected \(count) sleeps on the clock, found \(sleeping)") }
    }

    /// A wait on the clock that did not come about in time.
    public struct Stuck: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }
}

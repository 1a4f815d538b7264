public import ControlAPI
import Synchronization

/// Hands every ``DaemonEvent`` to the streams of `GET /v1/events`. Publishing never waits: each
/// subscriber has a buffer of ``bufferSize`` events, and a subscriber that falls that far behind
/// loses the oldest (a watcher re-reads `status` when it needs the whole picture).
public final class DaemonEvents: Sendable {
    public static let bufferSize = 1024
    private struct State {
        var next = 0
        var subscribers: [Int: AsyncStream<DaemonEvent>.Continuation] = [:]
        var finished = false
    }
    private let state = Mutex(State())

    public init() {}

    /// A new stream of the events published from now on; it ends when the daemon stops.
    public func subscribe() -> AsyncStream<DaemonEvent> {
        let (stream, continuation) = AsyncStream<DaemonEvent>.makeStream(bufferingPolicy: .bufferingNewest(Self.bufferSize))
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            defer { state.next += 1 }
            state.subscribers[state.next] = continuation
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    public func publish(_ event: DaemonEvent) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(event) }
    }

    /// Ends every stream, and every later one at once: the daemon is stopping.
    public func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// How many streams are open.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
}

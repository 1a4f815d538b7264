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
        var observers: [@Sendable (DaemonEvent) -> Void] = []
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

    /// Calls `observer` with every event published from now on, on the publisher's thread and
    /// before the streams get it, also once the streams have ended: for what must count every
    /// event, even one published while the daemon stops. `observer` must not block or wait.
    public func observe(_ observer: @escaping @Sendable (DaemonEvent) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    public func publish(_ event: DaemonEvent) {
        let (observers, subscribers) = state.withLock { ($0.observers, Array($0.subscribers.values)) }
        for observer in observers { observer(event) }
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

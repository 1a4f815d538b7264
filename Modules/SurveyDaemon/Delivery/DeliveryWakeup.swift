import Synchronization

/// Wakes the delivery worker: something was queued or requeued, a flush was asked for,
/// connectivity came back, a backoff ended. Made before the queue and the worker, and handed to
/// both, so that the queue can wake a worker made after it.
///
/// Wakes that come while the worker is busy are remembered as one: its next sleep ends at once.
/// `wake()` is synchronous and safe from any context (a cancellation or graceful-shutdown
/// handler included), so no task is ever started to deliver a wake. One waiter at a time.
public final class DeliveryWakeup: Sendable {
    /// The signal's states; each change returns what to do outside the lock.
    struct StateMachine {
        enum State {
            case idle
            /// Woken with nobody waiting: the next wait returns at once.
            case woken
            case waiting(CheckedContinuation<Void, Never>)
        }

        var state = State.idle
        /// Every wake asked for, for tests and logs.
        var wakes = 0

        /// A wake: resume the waiter, if any.
        mutating func wake() -> CheckedContinuation<Void, Never>? {
            wakes += 1
            switch state {
            case .idle, .woken:
                state = .woken
                return nil
            case .waiting(let waiter):
                state = .idle
                return waiter
            }
        }

        /// A wait begins: resume it at once when a wake came first.
        mutating func wait(_ waiter: CheckedContinuation<Void, Never>) -> CheckedContinuation<Void, Never>? {
            switch state {
            case .woken:
                state = .idle
                return waiter
            case .idle:
                state = .waiting(waiter)
                return nil
            case .waiting:
                preconditionFailure("DeliveryWakeup has one waiter at a time")
            }
        }

        /// Forgets a wake nobody waited for (a new round is about to look at the queue anyway).
        mutating func reset() {
            if case .woken = state { state = .idle }
        }
    }

    private let machine = Mutex(StateMachine())

    public init() {}

    /// Ends the current or the next wait.
    public func wake() {
        machine.withLock { $0.wake() }?.resume()
    }

    /// Returns once woken; at once when a wake came since the last wait or `reset()`.
    func wait() async {
        await withCheckedContinuation { waiter in
            machine.withLock { $0.wait(waiter) }?.resume()
        }
    }

    /// Forgets a wake that came while nobody waited.
    func reset() {
        machine.withLock { $0.reset() }
    }

    /// How many wakes were asked for so far.
    var wakes: Int { machine.withLock { $0.wakes } }

    /// Whether someone waits for a wake now (the worker is asleep), for tests.
    var isWaiting: Bool {
        machine.withLock { if case .waiting = $0.state { true } else { false } }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Storage
import Synchronization

/// Where an answer that completed a stage meets the delivery of that stage.
///
/// The answer ``expect(_:)``s the delivery before it queues the stage, so that a delivery that
/// finishes before the answer starts to wait is kept for it; then it ``wait(for:timeout:clock:)``s,
/// at most `timeout`: the waiting call enforces its deadline itself, and no timer outlives it.
/// The delivery worker's report goes through ``deliver(_:_:)`` first; a delivery nobody expects
/// (the answer left with `queued`, or the daemon restarted) is the session manager's to record.
///
/// The state sits in a `Mutex`, since the deadline ends a wait from the timer's own task.
final class DeliveryRendezvous: Sendable {
    private enum Entry {
        /// An answer is about to wait for this delivery.
        case expected
        /// An answer waits for it.
        case waiting(CheckedContinuation<SubmissionState?, Never>)
        /// It finished before the answer waited.
        case arrived(SubmissionState)
    }

    private let entries = Mutex<[UUID: Entry]>([:])

    init() {}

    /// An answer will wait for the delivery under `key`.
    func expect(_ key: UUID) {
        entries.withLock { $0[key] = .expected }
    }

    /// The answer will not wait for the delivery under `key` after all. Returns the outcome that
    /// arrived meanwhile, if one did.
    @discardableResult
    func cancel(_ key: UUID) -> SubmissionState? {
        let removed = entries.withLock { $0.removeValue(forKey: key) }
        switch removed {
        case .arrived(let state): return state
        case .waiting(let continuation):
            continuation.resume(returning: nil)
            return nil
        case .expected, nil: return nil
        }
    }

    /// Hands the outcome of the delivery under `key` to the answer that waits for it, or keeps it
    /// for the answer about to. False when no answer expects it.
    func deliver(_ key: UUID, _ state: SubmissionState) -> Bool {
        let (expected, waiter) = entries.withLock { entries -> (Bool, CheckedContinuation<SubmissionState?, Never>?) in
            switch entries[key] {
            case nil:
                return (false, nil)
            case .expected, .arrived:
                entries[key] = .arrived(state)
                return (true, nil)
            case .waiting(let continuation):
                entries[key] = nil
                return (true, continuation)
            }
        }
        waiter?.resume(returning: state)
        return expected
    }

    /// Waits for the delivery under `key` (expected before), at most `timeout` by `clock`: its
    /// outcome, or nil when the deadline passed first or the waiting task was cancelled. The
    /// expectation ends with the wait.
    func wait(for key: UUID, timeout: Duration, clock: any Clock<Duration>, isolation: isolated (any Actor)? = #isolation) async -> SubmissionState? {
        switch entries.withLock({ $0[key] }) {
        case .arrived(let state):
            entries.withLock { _ = $0.removeValue(forKey: key) }
            return state
        case nil:
            return nil
        case .expected, .waiting:
            break
        }
        return await withTaskGroup(of: Void.self, isolation: isolation) { timer in
            // Ends the wait at the deadline, or at once when the waiting task is cancelled.
            timer.addTask { [self] in
                try? await clock.sleep(for: timeout)
                expire(key)
            }
            let state = await withCheckedContinuation(isolation: isolation) { park(key, $0) }
            timer.cancelAll()
            return state
        }
    }

    /// Parks the waiting answer's continuation, or resumes it at once when the outcome arrived
    /// or the deadline passed before it parked.
    private func park(_ key: UUID, _ continuation: CheckedContinuation<SubmissionState?, Never>) {
        let now: SubmissionState?? = entries.withLock { entries in
            switch entries[key] {
            case .expected:
                entries[key] = .waiting(continuation)
                return .none
            case .arrived(let state):
                entries[key] = nil
                return .some(state)
            case .waiting, nil:
                return .some(nil)
            }
        }
        if case .some(let state) = now { continuation.resume(returning: state) }
    }

    /// The deadline of the wait for `key` passed: the waiting answer goes on without an outcome.
    private func expire(_ key: UUID) {
        let waiter = entries.withLock { entries -> CheckedContinuation<SubmissionState?, Never>? in
            switch entries[key] {
            case .waiting(let continuation):
                entries[key] = nil
                return continuation
            case .expected:
                entries[key] = nil
                return nil
            case .arrived, nil:
                return nil
            }
        }
        waiter?.resume(returning: nil)
    }
}

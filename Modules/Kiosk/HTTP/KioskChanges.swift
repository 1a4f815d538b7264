import Synchronization

/// Tells the welcome screen's held requests (`GET /state?shown=…`) that something it shows may
/// have changed: out of service, the survey chosen, the staff PIN, the brand or the attract
/// images. Whoever changes such a thing calls ``signal()``; every held request then looks again
/// and answers when what it holds for is no longer what the kiosk shows. A signal costs nothing
/// when no request is held, and nothing here runs while nothing changes.
public final class KioskChanges: Sendable {
    struct State {
        var version = 0
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waits cancelled before they parked.
        var cancelled: Set<Int> = []
    }

    let state = Mutex(State())

    public init() {}

    /// Something the welcome screen shows may have changed: wakes every held request.
    public func signal() {
        let woken = state.withLock { state in
            state.version += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// How many signals were given so far.
    public var version: Int { state.withLock { $0.version } }

    /// How many requests wait for a signal now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Returns at the first signal after `version` (at once when one came already), or when the
    /// task is cancelled.
    func wait(after version: Int) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.cancelled.remove(id) != nil || state.version != version { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return waiter
            }
            waiter?.resume()
        }
        // A cancellation that came after the wait ended leaves no mark behind.
        _ = state.withLock { $0.cancelled.remove(id) }
    }
}

import ControlAPI
import ServiceLifecycle
import Synchronization

/// The wait of a service that has nothing to do until something happens or its next deadline
/// comes: no timer at all when it has no deadline.
extension DeliveryWakeup {
    /// How a ``sleep(_:on:)`` ended.
    enum SleepEnd: Sendable, Equatable {
        /// The pause passed.
        case deadline
        /// A wake came first.
        case woken
        /// The graceful shutdown began or the task was cancelled.
        case stopping
    }

    /// Sleeps for `pause` on `timeline` (without a timer when nil: until woken), or until woken,
    /// or until the graceful shutdown or a cancellation. One sleeper at a time, as for every wait
    /// on a wakeup; a wake that came before the sleep ends it at once.
    func sleep(_ pause: Duration?, on timeline: Timeline) async -> SleepEnd {
        if Task.isShuttingDownGracefully || Task.isCancelled { return .stopping }
        if let pause, pause <= .zero { return .deadline }
        let expired = ExpiryFlag()
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                guard let pause else {
                    await wait()
                    return
                }
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { [self] in
                        // Ends the wait as a wake would; cancelled when a wake came first.
                        do {
                            try await timeline.sleep(pause)
                            expired.value.store(true, ordering: .relaxed)
                            wake()
                        } catch {}
                    }
                    await wait()
                    group.cancelAll()
                }
            } onCancel: { [self] in
                wake()
            }
        } onGracefulShutdown: { [self] in
            wake()
        }
        if Task.isShuttingDownGracefully || Task.isCancelled { return .stopping }
        return expired.value.load(ordering: .relaxed) ? .deadline : .woken
    }

    /// Wakes this wakeup for every event of `events` that `matters`, until the stream ends or
    /// the task is cancelled. Subscribe before the first look at the state, so that nothing
    /// that happens after it is missed.
    func follow(_ events: AsyncStream<DaemonEvent>, where matters: @Sendable (DaemonEvent) -> Bool = { _ in true }) async {
        for await event in events where matters(event) {
            wake()
        }
    }
}

/// Whether a sleep's timer ran out (rather than a wake ending it first).
private final class ExpiryFlag: Sendable {
    let value = Atomic(false)
}

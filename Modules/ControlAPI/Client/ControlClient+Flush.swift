#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ControlClient {
    /// How often `flushAndWait` reads the queue again when no event came meanwhile.
    static let recheckInterval: Duration = .seconds(5)

    /// The events after which the pending count or connectivity may have changed.
    static let queueEvents: Set<DaemonEvent.Kind> = [.hello, .stageQueued, .delivered, .dead, .retryScheduled, .connectivityChanged]

    /// `surveyctl flush --wait`: asks the daemon for one flush, then follows its events
    /// (`GET /v1/events`) and reads the queue (`GET /v1/status`) again after each one that can
    /// change it (and at least every ``recheckInterval``), until nothing is pending or `timeout`
    /// has passed.
    ///
    /// Only the first request flushes: a flush forgets every backoff delay (a server's
    /// `Retry-After` included), so asking again while waiting would hammer a server that asked
    /// for time. The daemon retries on its own schedule meanwhile.
    /// - Parameter progress: called with what is left after the flush and after every reading
    ///   while something is pending.
    /// - Returns: the last state seen; `drained` is false when the timeout passed first.
    public func flushAndWait(timeout: Duration, progress: (FlushReply) -> Void = { _ in }) async throws(ControlClientError) -> FlushReply {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var reply = try await flush(FlushRequest(wait: false))
        while !reply.drained {
            progress(reply)
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero || Task.isCancelled { break }
            let end = try await watchEvents(for: min(Self.recheckInterval, remaining)) { event throws(ControlClientError) in
                guard Self.queueEvents.contains(event.type) else { return true }
                reply = try await queueState()
                guard !reply.drained else { return false }
                progress(reply)
                return clock.now < deadline
            }
            switch end {
            case .stopped:
                continue
            case .timedOut:
                reply = try await queueState()
            case .daemonStopped:
                // Stopping: read the queue once more after a moment rather than follow again at once.
                try? await Task.sleep(for: min(.milliseconds(500), clock.now.duration(to: deadline)))
                reply = try await queueState()
            }
        }
        return reply
    }

    /// The queue as `flush` reports it, from `GET /v1/status`.
    func queueState() async throws(ControlClientError) -> FlushReply {
        let status = try await status()
        return FlushReply(pending: status.queue.pending, dead: status.queue.dead, drained: status.queue.pending == 0, connectivity: status.connectivity.state)
    }
}

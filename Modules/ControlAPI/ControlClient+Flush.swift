import Foundation

extension ControlClient {
    /// `surveyctl flush --wait`: asks the daemon for one flush, then watches the queue with
    /// `GET /v1/status` every `pollInterval` until nothing is pending or `timeout` has passed.
    ///
    /// Only the first request flushes: a flush forgets every backoff delay (a server's
    /// `Retry-After` included), so asking again while waiting would hammer a server that asked
    /// for time. The daemon retries on its own schedule meanwhile.
    /// - Parameter progress: called with what is left after the flush and after every poll
    ///   while something is pending.
    /// - Returns: the last state seen; `drained` is false when the timeout passed first.
    public func flushAndWait(timeout: Duration, pollInterval: Duration = .milliseconds(500), progress: (FlushReply) -> Void = { _ in }) async throws(ControlClientError) -> FlushReply {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var reply = try await flush(FlushRequest(wait: false))
        while !reply.drained {
            progress(reply)
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero || Task.isCancelled { break }
            try? await Task.sleep(for: min(pollInterval, remaining))
            let status = try await status()
            reply = FlushReply(pending: status.queue.pending, dead: status.queue.dead, drained: status.queue.pending == 0, connectivity: status.connectivity.state)
        }
        return reply
    }
}

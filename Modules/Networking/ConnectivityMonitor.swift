import Foundation

/// Answers "can the survey server be reached right now?" without sending an HTTP request.
public protocol ConnectivityProbe: Sendable {
    /// True when the server looks reachable.
    func isReachable() async -> Bool
}

/// Connectivity as the daemon sees it, with the time of the last change.
public struct ConnectivityStatus: Sendable, Hashable {
    public enum State: String, Sendable, Hashable { case unknown, online, offline }
    public var state: State
    /// When `state` last changed (nil while unknown).
    public var since: Date?

    public init(state: State, since: Date?) {
        self.state = state
        self.since = since
    }
}

/// Runs a probe before calls and reuses its verdict for `reuse` (default 1 s).
/// The current state and when it last changed are observable through `status`.
public actor ConnectivityMonitor {
    private let probe: any ConnectivityProbe
    private let reuse: Duration
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let wallClock: @Sendable () -> Date
    private var verdict: (reachable: Bool, at: ContinuousClock.Instant)?
    private var inFlight: Task<Bool, Never>?
    public private(set) var status = ConnectivityStatus(state: .unknown, since: nil)

    public init(
        probe: any ConnectivityProbe,
        reuse: Duration = .seconds(1),
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        wallClock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.probe = probe
        self.reuse = reuse
        self.clock = clock
        self.wallClock = wallClock
    }

    /// The verdict: reused while younger than `reuse`, else probed again (concurrent callers share one probe).
    public func isReachable() async -> Bool {
        if let verdict, clock() - verdict.at < reuse { return verdict.reachable }
        if let inFlight { return await inFlight.value }
        let probe = self.probe
        let task = Task { await probe.isReachable() }
        inFlight = task
        let reachable = await task.value
        inFlight = nil
        record(reachable)
        return reachable
    }

    /// Forgets the cached verdict, e.g. after a connection failure.
    public func invalidate() { verdict = nil }

    private func record(_ reachable: Bool) {
        verdict = (reachable, clock())
        let state: ConnectivityStatus.State = reachable ? .online : .offline
        if status.state != state { status = ConnectivityStatus(state: state, since: wallClock()) }
    }
}

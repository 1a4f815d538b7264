#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// Callers waiting for the probe another caller is running (nil when none runs).
    private var waiters: [CheckedContinuation<Bool, Never>]?
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
    ///
    /// The first caller runs the probe in its own task; the others wait for its verdict. No task is
    /// started here, so nothing outlives the calls (the probe itself has a deadline).
    public func isReachable() async -> Bool {
        if let verdict, clock() - verdict.at < reuse { return verdict.reachable }
        if waiters != nil {
            return await withCheckedContinuation { waiters?.append($0) }
        }
        waiters = []
        let reachable = await probe.isReachable()
        record(reachable)
        let waiting = waiters ?? []
        waiters = nil
        for waiter in waiting { waiter.resume(returning: reachable) }
        return reachable
    }

    /// How many callers wait for a probe another caller runs.
    var waiting: Int { waiters?.count ?? 0 }

    /// Forgets the cached verdict, e.g. after a connection failure.
    public func invalidate() { verdict = nil }

    private func record(_ reachable: Bool) {
        verdict = (reachable, clock())
        let state: ConnectivityStatus.State = reachable ? .online : .offline
        if status.state != state { status = ConnectivityStatus(state: state, since: wallClock()) }
    }
}

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Logging
import Synchronization

/// Answers "can the survey server be reached right now?" without sending an HTTP request.
public protocol ConnectivityProbe: Sendable {
    /// True when the server looks reachable.
    func isReachable() async -> Bool
}

/// Connectivity as the daemon sees it, with the time of the last change.
public struct ConnectivityStatus: Sendable, Hashable {
    /// `portal`: the server's address answers, but something else answers in its place (a captive
    /// portal's login page, a redirect, `511`); nothing is uploaded until the server itself does.
    /// `clock_not_set`: the server's certificate cannot be checked because the wall clock is
    /// earlier than this build's date; `certificate_expired`: the server's certificate expired.
    /// Nothing is uploaded in either until the TLS handshake succeeds.
    public enum State: String, Sendable, Hashable, CaseIterable {
        case unknown, online, offline, portal
        case clockNotSet = "clock_not_set"
        case certificateExpired = "certificate_expired"

        init(_ kind: PortalSighting.Kind) {
            switch kind {
            case .portal: self = .portal
            case .clockNotSet: self = .clockNotSet
            case .certificateExpired: self = .certificateExpired
            }
        }
    }
    public var state: State
    /// When `state` last changed (nil while unknown).
    public var since: Date?
    /// What answered in the server's place (or what is wrong with its certificate), while
    /// `state` is `portal`, `clock_not_set` or `certificate_expired`.
    public var portal: PortalSighting?

    public init(state: State, since: Date?, portal: PortalSighting? = nil) {
        self.state = state
        self.since = since
        self.portal = portal
    }
}

/// Runs a probe before calls and reuses its verdict for `reuse` (default 1 s).
/// The current state and when it last changed are observable through `status`.
///
/// Once something else has answered in the server's place (``sawSomethingElse(answer:redirect:)``),
/// a TCP connect proves nothing: the probe is then followed by the `identity` check (a request
/// only the survey server answers in its envelope), and calls are refused until it passes.
public actor ConnectivityMonitor {
    private let probe: any ConnectivityProbe
    private let reuse: Duration
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let wallClock: @Sendable () -> Date
    private var verdict: (reachable: Bool, at: ContinuousClock.Instant)?
    /// Callers waiting for the probe another caller is running (nil when none runs).
    private var waiters: [CheckedContinuation<Bool, Never>]?
    public private(set) var status = ConnectivityStatus(state: .unknown, since: nil)
    private let identity: (any ServerIdentityCheck)?
    /// What last answered in the server's place, kept through an outage until the identity check
    /// finds the server itself (a kiosk that loses and regains the venue's Wi-Fi meets its portal again).
    private var sighting: PortalSighting?
    private let logger: Logger
    /// Set by ``clockWasSet()``: the next call forgets the verdict.
    private let clockSet = Mutex(false)
    /// Told when the portal state (or a certificate's) starts or changes (that state) and when it
    /// ends (`online`).
    private let onPortal: @Sendable (ConnectivityStatus.State) -> Void

    public init(
        probe: any ConnectivityProbe,
        reuse: Duration = .seconds(1),
        identity: (any ServerIdentityCheck)? = nil,
        logger: Logger = Logger(label: "surveyd.connectivity"),
        onPortal: @escaping @Sendable (ConnectivityStatus.State) -> Void = { _ in },
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        wallClock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.probe = probe
        self.reuse = reuse
        self.identity = identity
        self.logger = logger
        self.onPortal = onPortal
        self.clock = clock
        self.wallClock = wallClock
    }

    /// The verdict: reused while younger than `reuse`, else probed again (concurrent callers share one probe).
    ///
    /// The first caller runs the probe in its own task; the others wait for its verdict. No task is
    /// started here, so nothing outlives the calls (the probe itself has a deadline).
    public func isReachable() async -> Bool {
        if clockSet.withLock({ set in defer { set = false }; return set }) { verdict = nil }
        if let verdict, clock() - verdict.at < reuse { return verdict.reachable }
        if waiters != nil {
            return await withCheckedContinuation { waiters?.append($0) }
        }
        waiters = []
        let reachable = await check()
        let waiting = waiters ?? []
        waiters = nil
        for waiter in waiting { waiter.resume(returning: reachable) }
        return reachable
    }

    /// How many callers wait for a probe another caller runs.
    var waiting: Int { waiters?.count ?? 0 }

    /// Forgets the cached verdict, e.g. after a connection failure.
    public func invalidate() { verdict = nil }

    /// The probe, and while something else answers in the server's place, the identity check.
    private func check() async -> Bool {
        guard await probe.isReachable() else {
            record(.offline)
            return false
        }
        // Without an identity check, the next successful probe ends a sighting.
        guard sighting != nil, let identity else {
            endPortal()
            return true
        }
        switch await identity.identify() {
        case .server:
            endPortal()
            return true
        case .notTheServer(let answer, let redirect):
            sawSomethingElse(answer: answer, redirect: redirect)
            return false
        case .certificate(let kind, let answer):
            sawSomethingElse(answer: answer, redirect: nil, kind: kind)
            return false
        case .unreachable:
            record(.offline)
            return false
        }
    }

    /// What the identity check made of one odd reply.
    public enum OddReplyVerdict: Sendable, Hashable {
        /// Something else answers in the server's place: the state is `portal` (or the
        /// certificate's state) now.
        case somethingElse
        /// The survey server itself answers its identity check: the odd reply was that request's
        /// own problem (a broken questionnaire, an unreadable reply), and nothing changes.
        case server
        /// The identity check reached nothing.
        case unreachable
    }

    /// One reply was not the survey server's (`answer` says what it was): before the whole daemon
    /// changes state, asks the server's identity at once. While a sighting lasts, or without an
    /// identity check, it is taken as something else answering.
    public func checkOddReply(answer: String, redirect: String?, status: Int?) async -> OddReplyVerdict {
        guard sighting == nil, let identity else {
            sawSomethingElse(answer: answer, redirect: redirect, status: status)
            return .somethingElse
        }
        switch await identity.identify() {
        case .server:
            logger.notice("one reply was not the survey server's, but the server answers its identity check: that request's own problem, connectivity unchanged", metadata: ["answer": "\(answer)"])
            if sighting == nil { record(.online) }
            return .server
        case .notTheServer(_, let seen):
            sawSomethingElse(answer: answer, redirect: redirect ?? seen, status: status)
            return .somethingElse
        case .certificate(let kind, let seen):
            sawSomethingElse(answer: seen, redirect: nil, kind: kind)
            return .somethingElse
        case .unreachable:
            verdict = nil
            return .unreachable
        }
    }

    /// Something else answered in the survey server's place: the state becomes `portal`, and calls
    /// wait until the identity check finds the server itself again. Logged once when it starts.
    /// `kind` names a certificate's problem instead (the clock, an expired certificate).
    public func sawSomethingElse(answer: String, redirect: String?, kind: PortalSighting.Kind = .portal, status: Int? = nil) {
        let started = sighting?.kind != kind
        // The identity check's answer names no status: the status first seen (a 403 page that
        // may also be the token's refusal) stays with the sighting.
        let status = status ?? (started ? nil : sighting?.status)
        sighting = PortalSighting(answer: answer, redirect: redirect, since: started ? wallClock() : sighting?.since ?? wallClock(), kind: kind, status: status)
        record(ConnectivityStatus.State(kind))
        guard started else { return }
        switch kind {
        case .portal:
            var message = "the network answers in the survey server's place (a captive portal or a redirect): nothing is uploaded until the survey server itself answers; \(OperatorAdvice.portal)"
            if let redirect { message += "; " + OperatorAdvice.redirect(to: redirect) }
            if let status, status == 401 || status == 403 { message += "; " + OperatorAdvice.tokenRefusal(status: status) }
            logger.warning("\(message)", metadata: ["answer": "\(answer)"])
        case .clockNotSet:
            logger.warning("the wall clock is not set (the survey server's certificate is not valid yet by it, or it is earlier than this build's date), so the certificate cannot be checked: nothing is uploaded until it is; \(OperatorAdvice.clockNotSet), delivery goes on at once when it steps", metadata: ["answer": "\(answer)"])
        case .certificateExpired:
            logger.warning("the survey server's certificate expired: nothing is uploaded until the server has a valid one; renew the certificate on the server", metadata: ["answer": "\(answer)"])
        }
        onPortal(ConnectivityStatus.State(kind))
    }

    /// The wall clock was set: a verdict taken under the old time (a certificate the clock made
    /// unusable) is asked again at the next call. Callable from any thread (the wall-clock
    /// watcher's).
    public nonisolated func clockWasSet() {
        clockSet.withLock { $0 = true }
    }

    private func endPortal() {
        let ended = sighting
        sighting = nil
        record(.online)
        guard let sighting = ended else { return }
        logger.notice("the survey server answers again: uploads go on", metadata: ["portal since": "\(sighting.since)"])
        onPortal(.online)
    }

    private func record(_ state: ConnectivityStatus.State) {
        verdict = (state == .online, clock())
        let portal = [.portal, .clockNotSet, .certificateExpired].contains(state) ? sighting : nil
        if status.state != state {
            status = ConnectivityStatus(state: state, since: wallClock(), portal: portal)
        } else {
            status.portal = portal
        }
    }
}

import Foundation

/// How many uploads a kiosk may have in flight, and when it must hold off: a pure value that
/// decides, and never sleeps or sends.
///
/// After an outage delivery starts with `initialWindow` uploads in flight (1 by default) and
/// opens one more with every delivered upload, up to `maxWindow`. A server that says it is
/// overloaded (429 or 503) closes it again: with `Retry-After` the window drops to 1, without it
/// is halved. Either way no upload starts for a while: the server's `Retry-After` (up to
/// `maxRetryAfter`) and on top of it a time drawn with full jitter from the `holdOff` window
/// (16 s at first, doubling with each refusal in a row up to 60 s by default). Each refused
/// upload counts, those in flight together too: a kiosk turned away with four uploads on their
/// way holds off longer than one turned away with one (counting them once made a fleet's peak
/// after an outage higher in `FleetSimulation`; `doc/benchmarks.md`). A server that turned a
/// fleet away thus sees it come back spread over that window after the time it asked for, not
/// all in the second its `Retry-After` names. A delivery ends the run of refusals.
///
/// With `enabled` off the window is always `maxWindow` and nothing holds off: each refused
/// upload waits out its own backoff while the others go on, as older releases did.
public struct DeliveryRamp: Sendable, Hashable {
    public struct Settings: Sendable, Hashable {
        /// Ramp on; off, uploads always run `maxWindow` at once.
        public var enabled: Bool
        /// The window after an outage (at least 1).
        public var initialWindow: Int
        /// The most uploads at once (the worker's `maxInFlight`).
        public var maxWindow: Int
        /// The window a hold-off is drawn from, by refusals in a row.
        public var holdOff: RetryPolicy
        /// The longest `Retry-After` honoured.
        public var maxRetryAfter: Duration

        public init(enabled: Bool = true, initialWindow: Int = 1, maxWindow: Int, holdOff: RetryPolicy = Self.defaultHoldOff, maxRetryAfter: Duration = .seconds(300)) {
            self.enabled = enabled
            self.maxWindow = max(1, maxWindow)
            self.initialWindow = min(max(1, initialWindow), self.maxWindow)
            self.holdOff = holdOff
            self.maxRetryAfter = maxRetryAfter
        }

        /// 16 s at first, up to 60 s.
        public static let defaultHoldOff = RetryPolicy(base: .seconds(16), cap: .seconds(60))
    }

    public private(set) var settings: Settings
    /// Uploads allowed in flight now.
    public private(set) var window: Int
    /// Refusals (429/503) since the last delivery.
    public private(set) var refusals = 0
    /// Until when (on the caller's timeline) no new upload may start.
    public private(set) var holdUntil: Duration?

    public init(settings: Settings) {
        self.settings = settings
        window = settings.enabled ? settings.initialWindow : settings.maxWindow
    }

    /// Whether another upload may start, with `inFlight` on their way, at `now`.
    public func permits(inFlight: Int, at now: Duration) -> Bool {
        if let holdUntil, now < holdUntil { return false }
        return inFlight < window
    }

    /// An upload was delivered: one more in flight from now on, up to the maximum.
    public mutating func delivered() {
        refusals = 0
        guard settings.enabled else { return }
        window = min(settings.maxWindow, window + 1)
    }

    /// The server refused an upload because it is overloaded (429/503), at `now`.
    /// - Parameter unitRandom: a number in `0 ... 1` for the jitter of the hold-off.
    public mutating func refused(retryAfter: Duration?, at now: Duration, unitRandom: Double) {
        refusals += 1
        guard settings.enabled else { return }
        window = retryAfter == nil ? max(1, window / 2) : 1
        let asked = min(max(retryAfter ?? .zero, .zero), settings.maxRetryAfter)
        let pause = asked + settings.holdOff.delay(attempt: refusals - 1, unitRandom: unitRandom)
        holdUntil = max(holdUntil ?? .zero, now + pause)
    }

    /// The longest `Retry-After` honoured, from the next refusal on (a reloaded backoff cap).
    public var maxRetryAfter: Duration {
        get { settings.maxRetryAfter }
        set { settings.maxRetryAfter = newValue }
    }

    /// Forgets the hold-off (an operator's flush asks for every upload now); the window stays.
    public mutating func forgetHoldOff() {
        holdUntil = nil
    }

    /// The server could not be reached: after the outage, delivery starts over from the initial window.
    public mutating func restart() {
        guard settings.enabled else { return }
        window = settings.initialWindow
    }
}

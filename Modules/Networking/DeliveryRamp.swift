#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How many uploads a kiosk may have in flight, how soon the next may start, and when it must hold
/// off: a pure value that decides, and never sleeps or sends.
///
/// After an outage delivery starts with `initialWindow` uploads in flight (1 by default) and
/// opens one more with every delivered upload, up to `maxWindow`. Uploads also start at a pace:
/// `initialRate` a second at first (1 by default), faster by `rateGrowth` (10 %) with every
/// delivery, so for a kiosk alone only the window limits them after at most about 11 s (73
/// deliveries; sooner when the window is the slower of the two). A server that says it is
/// overloaded (429 or 503) closes the window again (with `Retry-After` to 1, without it halved)
/// and puts the pace back to `initialRate`, where it stays until `calmAfter` uploads were
/// delivered with no refusal between them: a kiosk that has seen the fleet crowd the server does
/// not speed up on the few uploads that got through. And no upload starts for a while: the
/// server's `Retry-After` (up to `maxRetryAfter`) and on top of it a time drawn with full jitter
/// from the `holdOff` window (12 s at first, doubling with each refusal in a row up to 45 s by
/// default). Each refused
/// upload counts, those in flight together too: a kiosk turned away with four uploads on their
/// way holds off longer than one turned away with one (counting them once made a fleet's peak
/// after an outage higher in `FleetSimulation`; `doc/benchmarks.md`). A server that turned a
/// fleet away thus sees it come back spread over that window after the time it asked for, not
/// all in the second its `Retry-After` names, and each kiosk back at one upload a second. A
/// delivery ends the run of refusals.
///
/// With `enabled` off the window is always `maxWindow` and nothing holds off or paces: each
/// refused upload waits out its own backoff while the others go on, as older releases did.
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
        /// Uploads started per second after an outage or a refusal; nil: no pace, only the window.
        /// Checked once, here: between `slowest` and `unpaced`, or nil.
        public let initialRate: Double?
        /// How much faster the pace gets with each delivery (0.1: 10 %; never negative).
        public let rateGrowth: Double
        /// Deliveries in a row after a refusal before the pace grows again (at least 1).
        public let calmAfter: Int

        public init(enabled: Bool = true, initialWindow: Int = 1, maxWindow: Int, holdOff: RetryPolicy = Self.defaultHoldOff, maxRetryAfter: Duration = .seconds(300),
                    initialRate: Double? = 1, rateGrowth: Double = 0.1, calmAfter: Int = 20) {
            self.enabled = enabled
            self.maxWindow = max(1, maxWindow)
            self.initialWindow = min(max(1, initialWindow), self.maxWindow)
            self.holdOff = holdOff
            self.maxRetryAfter = maxRetryAfter
            // A pace as fast as `unpaced` holds nothing back; one slower than `slowest` is taken as it.
            self.initialRate = initialRate.flatMap { $0.isFinite && $0 > 0 && $0 < Self.unpaced ? max($0, Self.slowest) : nil }
            self.rateGrowth = rateGrowth.isFinite ? max(0, rateGrowth) : 0
            self.calmAfter = max(1, calmAfter)
        }

        /// A pace this fast no longer holds anything back: one upload every millisecond.
        public static let unpaced = 1_000.0
        /// The slowest pace: one upload an hour.
        public static let slowest = 1.0 / 3_600

        /// 12 s at first, up to 45 s.
        public static let defaultHoldOff = RetryPolicy(base: .seconds(12), cap: .seconds(45))
    }

    public private(set) var settings: Settings
    /// Uploads allowed in flight now.
    public private(set) var window: Int
    /// Refusals (429/503) since the last delivery.
    public private(set) var refusals = 0
    /// Until when (on the caller's timeline) no new upload may start after a refusal.
    public private(set) var holdUntil: Duration?
    /// Uploads started per second at most; nil: no pace.
    public private(set) var rate: Double?
    /// A refusal was seen and fewer than `calmAfter` deliveries followed it: the pace stays.
    public private(set) var crowded = false
    /// Deliveries since the last refusal.
    public private(set) var deliveredInRow = 0
    /// When the pace lets the next upload start.
    public private(set) var nextStart: Duration?

    public init(settings: Settings) {
        self.settings = settings
        window = settings.enabled ? settings.initialWindow : settings.maxWindow
        rate = settings.enabled ? settings.initialRate : nil
    }

    /// Whether another upload may start, with `inFlight` on their way, at `now`.
    public func permits(inFlight: Int, at now: Duration) -> Bool {
        if let notBefore, now < notBefore { return false }
        return inFlight < window
    }

    /// The earliest time the next upload may start: the end of the hold-off or the pace's next
    /// start, whichever is later; nil when neither holds anything back.
    public var notBefore: Duration? {
        switch (holdUntil, nextStart) {
        case let (hold?, next?): max(hold, next)
        case let (hold, next): hold ?? next
        }
    }

    /// An upload started at `now`: the pace puts the next one `1/rate` later.
    public mutating func launched(at now: Duration) {
        // `rate` is `initialRate` or grown from it, so at least `Settings.slowest`.
        guard let rate else { return }
        nextStart = now + .nanoseconds(Int64((1e9 / rate).rounded()))
    }

    /// An upload was delivered: one more in flight from now on, up to the maximum, and a faster
    /// pace unless the server was crowded a short while ago.
    public mutating func delivered() {
        refusals = 0
        guard settings.enabled else { return }
        window = min(settings.maxWindow, window + 1)
        deliveredInRow += 1
        if crowded && deliveredInRow >= settings.calmAfter { crowded = false }
        if let current = rate, !crowded {
            let faster = current * (1 + settings.rateGrowth)
            rate = faster >= Settings.unpaced ? nil : faster
            if rate == nil { nextStart = nil }
        }
    }

    /// The server refused an upload because it is overloaded (429/503), at `now`.
    /// - Parameter unitRandom: a number in `0 ... 1` for the jitter of the hold-off.
    public mutating func refused(retryAfter: Duration?, at now: Duration, unitRandom: Double) {
        refusals += 1
        guard settings.enabled else { return }
        window = retryAfter == nil ? max(1, window / 2) : 1
        deliveredInRow = 0
        if let initialRate = settings.initialRate {
            rate = initialRate
            crowded = true
        }
        let asked = min(max(retryAfter ?? .zero, .zero), settings.maxRetryAfter)
        let pause = asked + settings.holdOff.delay(attempt: refusals - 1, unitRandom: unitRandom)
        holdUntil = max(holdUntil ?? .zero, now + pause)
    }

    /// The longest `Retry-After` honoured, from the next refusal on (a reloaded backoff cap).
    public var maxRetryAfter: Duration {
        get { settings.maxRetryAfter }
        set { settings.maxRetryAfter = newValue }
    }

    /// Forgets the hold-off and the pace (an operator's flush asks for every upload now); the
    /// window stays. A later refusal or outage brings the pace back.
    public mutating func forgetHoldOff() {
        holdUntil = nil
        nextStart = nil
        rate = nil
        crowded = false
    }

    /// The server could not be reached: after the outage, delivery starts over from the initial
    /// window and pace.
    public mutating func restart() {
        guard settings.enabled else { return }
        window = settings.initialWindow
        rate = settings.initialRate
        crowded = false
        deliveredInRow = 0
        nextStart = nil
    }
}

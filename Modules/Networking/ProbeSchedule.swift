#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When to probe the survey server again while it cannot be reached: a pure value.
///
/// After `failures + 1` failed probes in a row, the next probe waits a delay drawn uniformly from
/// `0 ... min(cap, base · 2^failures)` ("full jitter"), so that a fleet whose
/// server went away spreads its probes out instead of knocking in step. A success resets the count
/// (the caller waits `base` again before its next probe). With `jitter` off and `cap == base` it is the
/// fixed interval of older surveyd releases (every probe exactly `base` apart), which the fleet
/// simulation keeps as its baseline. Randomness is injected so that tests are deterministic.
public struct ProbeSchedule: Sendable, Hashable {
    /// The first ceiling of the delay window (and the fixed interval without jitter).
    public var base: Duration
    /// The largest delay ever returned.
    public var cap: Duration
    /// Full jitter (uniform in the window); off, the delay is the window's ceiling.
    public var jitter: Bool

    public init(base: Duration = .seconds(2), cap: Duration = .seconds(60), jitter: Bool = true) {
        self.base = base
        self.cap = max(cap, base)
        self.jitter = jitter
    }

    /// The fixed interval of older releases: every `interval`, no jitter, no growth.
    public static func fixed(_ interval: Duration) -> ProbeSchedule {
        ProbeSchedule(base: interval, cap: interval, jitter: false)
    }

    /// The upper bound of the window after `failures + 1` failed probes in a row.
    public func ceiling(failures: Int) -> Duration {
        RetryPolicy(base: base, cap: cap).ceiling(attempt: failures)
    }

    /// The delay before the next probe after `failures + 1` failed probes in a row.
    /// - Parameter unitRandom: a number in `0 ... 1` that picks the point in the window.
    public func delay(failures: Int, unitRandom: Double) -> Duration {
        let ceiling = ceiling(failures: failures)
        guard jitter else { return ceiling }
        return .seconds(ceiling.seconds * min(max(unitRandom, 0), 1))
    }

    /// The delay before the next probe, drawing from `generator`.
    public func delay(failures: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        delay(failures: failures, unitRandom: Double.random(in: 0 ... 1, using: &generator))
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Measures steps of the wall clock against a monotonic one: the difference between the two
/// stays the same while both run, and changes by the size of a step when the wall clock is set.
/// A pure value: the ``WallClockWatcher`` feeds it readings when the kernel says the clock was
/// set; tests feed it readings of their own.
struct WallClockStepMeter: Sendable {
    /// A reading of both clocks at one moment.
    struct Reading: Sendable {
        /// The wall clock.
        var wall: Date
        /// The monotonic clock, as time elapsed since some origin of its own.
        var elapsed: Duration
    }

    /// A step of the wall clock: positive forward, negative back.
    struct Step: Sendable, Hashable {
        var seconds: Double
        var forward: Bool { seconds > 0 }
    }

    /// The smallest change that counts as a step (smaller ones are the clock being disciplined).
    let threshold: Duration
    /// The wall clock minus the monotonic one, in seconds, at the last reading.
    private(set) var offset: Double

    init(threshold: Duration, first: Reading) {
        self.threshold = threshold
        offset = Self.offset(first)
    }

    /// Takes a new reading; returns the step since the previous one when it is at least
    /// ``threshold``. Every reading becomes the new reference, so a slow drift never adds up to
    /// a step.
    mutating func read(_ reading: Reading) -> Step? {
        let now = Self.offset(reading)
        let change = now - offset
        offset = now
        let (seconds, attoseconds) = threshold.components
        return abs(change) >= Double(seconds) + Double(attoseconds) / 1e18 ? Step(seconds: change) : nil
    }

    private static func offset(_ reading: Reading) -> Double {
        let (seconds, attoseconds) = reading.elapsed.components
        return reading.wall.timeIntervalSince1970 - (Double(seconds) + Double(attoseconds) / 1e18)
    }
}

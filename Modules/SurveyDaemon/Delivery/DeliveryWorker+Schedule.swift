#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DeliveryWorker {
    /// The refusal (429 or 503) that started the ramp's hold-off.
    struct HoldOffCause: Sendable, Hashable {
        var status: Int
        /// The server sent a `Retry-After`.
        var askedToWait: Bool

        /// `the server asked to wait (503)`, or `the server said it is overloaded (429)` when it
        /// named no time.
        var reason: String {
            askedToWait ? "the server asked to wait (\(status))" : "the server said it is overloaded (\(status))"
        }
    }

    /// No upload starts until `until`, because of `reason`: the ramp's hold-off after a 429/503.
    public struct HoldOff: Sendable, Hashable {
        /// `the server asked to wait (503)` or `the server said it is overloaded (429)`.
        public var reason: String
        /// The server's answer that started it.
        public var status: Int
        public var until: Date
    }

    /// The hold-off after a 429/503 while it lasts; nil when none holds uploads back.
    public var holdOff: HoldOff? {
        let current = timeline.elapsed()
        guard let cause = holdOffCause, let hold = ramp.holdUntil, hold > current else { return nil }
        return HoldOff(reason: cause.reason, status: cause.status, until: date(of: hold, at: current))
    }

    /// When the next upload can really start, with `pending` submissions in the queue: the later
    /// of the earliest one's backoff (now, for one that waits out none) and the ramp's hold-off
    /// and pace. Nil when nothing is pending or delivery is paused; an offline server is not
    /// foreseen (the connectivity check decides when the round runs).
    public func nextStart(pending: Int) -> Date? {
        guard snapshotValue.paused == nil else { return nil }
        let current = timeline.elapsed()
        let waiting = notBefore.values.filter { $0 > current }
        let due = pending - snapshotValue.inFlight - waiting.count
        guard let earliest = due > 0 ? current : waiting.min() else { return nil }
        return date(of: startAllowed(after: earliest), at: current)
    }

    /// The later of `time` and the ramp's hold-off and pace: an upload due at `time` starts then.
    func startAllowed(after time: Duration) -> Duration {
        max(time, ramp.notBefore ?? time)
    }

    /// The wall-clock date of `time` on the timeline, read at `current`.
    func date(of time: Duration, at current: Duration) -> Date {
        now().addingTimeInterval(max(.zero, time - current).timeInterval)
    }
}

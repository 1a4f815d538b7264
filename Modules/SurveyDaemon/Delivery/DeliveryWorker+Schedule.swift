#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import ControlAPI
import Logging
import Networking

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

    /// Why the next upload waits and until when at the latest, for `surveyctl status`: the
    /// server could not be reached, or the earliest pending submission waits out its backoff after
    /// a failed upload. Nil when nothing waits (a submission due now, none pending, or the
    /// ``holdOff`` and the pause, which status shows on their own).
    public struct Waiting: Sendable, Hashable {
        public var reason: String
        public var until: Date?
    }

    /// What the next upload waits for, if anything (see ``Waiting``).
    public func waiting(pending: Int) -> Waiting? {
        guard snapshotValue.paused == nil, pending > 0 else { return nil }
        let current = timeline.elapsed()
        if let offline = offlineWait {
            let reason = offline.portal
                ?? "the survey server could not be reached (connectivity check at \(offline.since.iso8601Seconds)); delivery goes on as soon as a check succeeds"
            return Waiting(reason: reason, until: date(of: offline.until, at: current))
        }
        let waiting = notBefore.filter { $0.value > current }
        guard pending - snapshotValue.inFlight - waiting.count <= 0, let (id, time) = waiting.min(by: { $0.value < $1.value }) else { return nil }
        let attempt = attempts[id] ?? 0
        let reason = lastErrors[id].map { "upload \(attempt) of submission \(id) failed: \($0)" } ?? "submission \(id) waits out its backoff"
        return Waiting(reason: "retrying after a failed upload (\(reason))", until: date(of: startAllowed(after: time), at: current))
    }

    /// The round found the server unreachable: the worker sleeps for its offline pause unless the
    /// connectivity watcher wakes it sooner. Logged once when the wait starts.
    func waitOffline(from current: Duration, portal: String? = nil) {
        let until = current + settings.offlinePause
        if let wait = offlineWait {
            offlineWait = (wait.since, until, portal)
            return
        }
        offlineWait = (now(), until, portal)
        if let portal {
            logger.notice(
                "delivery waits: \(portal.hasPrefix("something else") ? "something else answers in the survey server's place (a captive portal or a redirect)" : "the survey server's certificate cannot be used (this device's clock, or an expired certificate)"); uploads go on once the survey server itself answers",
                metadata: ["longest wait": "\(settings.offlinePause)"])
        } else {
            logger.notice(
                "delivery waits: the survey server cannot be reached; uploads go on as soon as a connectivity check succeeds",
                metadata: ["longest wait": "\(settings.offlinePause)"])
        }
    }

    /// A round reached the server again after an offline wait.
    func endOfflineWait() {
        guard let wait = offlineWait else { return }
        offlineWait = nil
        logger.info("delivery goes on: the survey server is reachable again", metadata: ["unreachable since": "\(wait.since.iso8601Seconds)"])
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

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The welcome screen's held request: `GET /state?shown=S` answers at once when the kiosk shows
/// something else than `S`; otherwise it waits, without any timer of its own, until a
/// ``KioskChanges`` signal, the next boundary of the opening hours, or the end of its hold, and
/// answers then with what the kiosk shows.
///
/// The hold (``KioskSettings/stateHoldSeconds``, 240 s) is the one bound on a request's life: it
/// ends before a browser or proxy gives up on a silent response (Firefox after 300 s), and costs
/// one request per kiosk every 4 minutes while nothing changes. A boundary of the hours is a time
/// on the wall clock: the wait until it is measured on `clock` from the wall clock's reading when
/// the hold starts or looks again, so a stepped wall clock is followed at the latest when the hold
/// ends.
struct KioskStateHold<C: Clock>: Sendable where C.Duration == Duration {
    /// What the kiosk shows now, and when it changes by itself next (an hours boundary), if ever.
    struct Shown: Sendable, Hashable {
        var state: String
        var nextBoundary: Date?
    }

    let changes: KioskChanges
    let clock: C
    let hold: Duration
    let wallNow: @Sendable () -> Date
    /// How long after a boundary the kiosk looks again, so that it reads the hours past it.
    static var pastBoundary: Duration { .milliseconds(50) }

    /// What the kiosk shows, once it differs from `shown` or the hold ends.
    func answer(shown: String, current: @Sendable () async -> Shown) async -> String {
        let end = clock.now.advanced(by: hold)
        while true {
            let version = changes.version
            let now = await current()
            guard now.state == shown, clock.now < end, !Task.isCancelled else { return now.state }
            var deadline = end
            if let boundary = now.nextBoundary {
                let seconds = max(0, boundary.timeIntervalSince(wallNow()))
                let at = clock.now.advanced(by: .nanoseconds(Int64(seconds * 1e9))).advanced(by: Self.pastBoundary)
                if at < deadline { deadline = at }
            }
            let changes = changes
            let sleep: @Sendable () async -> Void = { [clock, deadline] in try? await clock.sleep(until: deadline, tolerance: nil) }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await changes.wait(after: version) }
                group.addTask { await sleep() }
                await group.next()
                group.cancelAll()
            }
        }
    }
}

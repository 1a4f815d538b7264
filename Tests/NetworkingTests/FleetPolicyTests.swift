import Foundation
import Testing
@testable import Networking

/// The fleet's pure decisions: when to probe an unreachable server, and how many uploads to
/// send at once after an outage.
@Suite(.timeLimit(.minutes(5))) struct ProbeScheduleTests {
    /// While probes fail, the window doubles from 2 s up to the cap; the jitter picks within it.
    @Test func delaysGrowWithFailuresUpToTheCap() {
        let schedule = ProbeSchedule(base: .seconds(2), cap: .seconds(60))
        #expect((0 ..< 7).map { schedule.delay(failures: $0, unitRandom: 1) } == [2, 4, 8, 16, 32, 60, 60].map { Duration.seconds($0) })
        #expect(schedule.delay(failures: 3, unitRandom: 0.25) == .seconds(4))
        #expect(schedule.delay(failures: 40, unitRandom: 0) == .zero)
    }

    /// The older fixed interval: every probe `base` apart, whatever the failures and the draw.
    @Test func fixedIsTheOldInterval() {
        let schedule = ProbeSchedule.fixed(.seconds(2))
        #expect([0, 5, 50].map { schedule.delay(failures: $0, unitRandom: 0.1) } == Array(repeating: Duration.seconds(2), count: 3))
    }

    /// Draws from a generator stay in the window.
    @Test func drawsStayInTheWindow() {
        var generator = SystemRandomNumberGenerator()
        let schedule = ProbeSchedule(base: .seconds(2), cap: .seconds(60))
        for failures in 0 ..< 10 {
            let delay = schedule.delay(failures: failures, using: &generator)
            #expect(delay >= .zero && delay <= schedule.ceiling(failures: failures))
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct DeliveryRampTests {
    let settings = DeliveryRamp.Settings(initialWindow: 1, maxWindow: 4)

    /// One upload at first, one more per delivery, up to the maximum.
    @Test func opensOneUploadPerDelivery() {
        var ramp = DeliveryRamp(settings: settings)
        var windows = [ramp.window]
        for _ in 0 ..< 5 { ramp.delivered(); windows.append(ramp.window) }
        #expect(windows == [1, 2, 3, 4, 4, 4])
        #expect(ramp.permits(inFlight: 3, at: .zero))
        #expect(!ramp.permits(inFlight: 4, at: .zero))
    }

    /// A 503/429 with Retry-After: one upload at a time, and none before Retry-After and a time
    /// drawn from the hold-off window (12 s at first) on top of it have passed.
    @Test func retryAfterClosesTheWindowAndHoldsOff() {
        var ramp = DeliveryRamp(settings: settings)
        for _ in 0 ..< 3 { ramp.delivered() }
        ramp.refused(retryAfter: .seconds(10), at: .seconds(100), unitRandom: 0.75)
        #expect(ramp.window == 1)
        #expect(ramp.holdUntil == .seconds(119))
        #expect(!ramp.permits(inFlight: 0, at: .seconds(118)))
        #expect(ramp.permits(inFlight: 0, at: .seconds(119)))
        // Kiosks told the same Retry-After come back spread over the window after it, not at it.
        let returns = [0.0, 0.25, 0.5, 1].map { draw in
            var kiosk = DeliveryRamp(settings: settings)
            kiosk.refused(retryAfter: .seconds(10), at: .seconds(100), unitRandom: draw)
            return kiosk.holdUntil
        }
        #expect(returns == [110, 113, 116, 122].map { Duration.seconds($0) })
        // A Retry-After beyond the longest honoured is cut to it.
        var long = DeliveryRamp(settings: settings)
        long.refused(retryAfter: .seconds(86_400), at: .zero, unitRandom: 0)
        #expect(long.holdUntil == .seconds(300))
    }

    /// Without Retry-After the window halves; the hold-off window doubles with refusals in a row
    /// up to its cap, and a delivery ends the run.
    @Test func refusalWithoutRetryAfterHalvesAndBacksOff() {
        var ramp = DeliveryRamp(settings: settings)
        for _ in 0 ..< 3 { ramp.delivered() }
        ramp.refused(retryAfter: nil, at: .zero, unitRandom: 1)
        #expect(ramp.window == 2)
        #expect(ramp.holdUntil == .seconds(12))
        ramp.refused(retryAfter: nil, at: .seconds(12), unitRandom: 1)
        #expect(ramp.window == 1)
        #expect(ramp.holdUntil == .seconds(36))
        ramp.refused(retryAfter: nil, at: .seconds(36), unitRandom: 1)
        #expect(ramp.holdUntil == .seconds(81), "capped at 45 s")
        ramp.delivered()
        #expect(ramp.refusals == 0)
        ramp.refused(retryAfter: nil, at: .seconds(200), unitRandom: 0.5)
        #expect(ramp.holdUntil == .seconds(206))
    }

    /// Each refused upload counts, those in flight together too: four refused at once make a run
    /// of four, and the hold-off is drawn from the window of the last (45 s); without
    /// Retry-After each halves the window. A longer Retry-After moves the end further.
    @Test func uploadsRefusedTogetherEachCount() {
        var ramp = DeliveryRamp(settings: settings)
        for _ in 0 ..< 3 { ramp.delivered() }
        ramp.refused(retryAfter: nil, at: .seconds(100), unitRandom: 1)
        ramp.refused(retryAfter: nil, at: .milliseconds(100_050), unitRandom: 1)
        ramp.refused(retryAfter: nil, at: .milliseconds(100_100), unitRandom: 0.5)
        #expect(ramp.refusals == 3)
        #expect(ramp.window == 1)
        #expect(ramp.holdUntil == .milliseconds(124_050), "the longest of 12, 24 and half of 45 s")
        ramp.refused(retryAfter: .seconds(90), at: .milliseconds(100_150), unitRandom: 0)
        #expect(ramp.refusals == 4)
        #expect(ramp.holdUntil == .milliseconds(190_150), "a longer Retry-After is honoured")
    }

    /// An outage starts the ramp over.
    @Test func restartGoesBackToTheInitialWindow() {
        var ramp = DeliveryRamp(settings: settings)
        for _ in 0 ..< 3 { ramp.delivered() }
        ramp.restart()
        #expect(ramp.window == 1)
    }

    /// After an outage uploads start one a second, 10 % faster with each delivery; the window
    /// still caps how many are on their way.
    @Test func thePaceStartsAtOneASecondAndGrowsWithDeliveries() {
        var ramp = DeliveryRamp(settings: settings)
        #expect(ramp.rate == 1)
        #expect(ramp.permits(inFlight: 0, at: .seconds(10)))
        ramp.launched(at: .seconds(10))
        #expect(ramp.nextStart == .seconds(11))
        #expect(!ramp.permits(inFlight: 0, at: .milliseconds(10_999)))
        #expect(ramp.permits(inFlight: 0, at: .seconds(11)))
        ramp.delivered()
        #expect(ramp.rate == 1.1)
        ramp.launched(at: .seconds(11))
        #expect(ramp.nextStart == .nanoseconds(11_909_090_909), "1/1.1 s later")
        #expect(ramp.notBefore == ramp.nextStart)
        #expect(!ramp.permits(inFlight: ramp.window, at: .seconds(20)), "the window still counts")
        // A kiosk alone: the pace no longer holds anything back after about 73 deliveries,
        // about 11 s of pacing in all.
        var elapsed = 0.0
        var alone = DeliveryRamp(settings: settings)
        var deliveries = 0
        while let rate = alone.rate {
            elapsed += 1 / rate
            alone.delivered()
            deliveries += 1
        }
        #expect(deliveries == 73)
        #expect(elapsed > 10.9 && elapsed < 11)
        alone.launched(at: .seconds(5))
        #expect(alone.notBefore == nil)
    }

    /// A 429/503 puts the pace back to one a second, where it stays through 19 deliveries in a
    /// row; the 20th lets it grow again. An outage starts it over without that wait.
    @Test func aRefusalPutsThePaceBackUntilTwentyDeliveriesInARow() {
        var ramp = DeliveryRamp(settings: settings)
        for _ in 0 ..< 10 { ramp.delivered() }
        #expect(ramp.rate! > 2.5)
        ramp.refused(retryAfter: .seconds(1), at: .seconds(100), unitRandom: 0)
        #expect(ramp.rate == 1)
        #expect(ramp.crowded)
        for _ in 0 ..< 19 { ramp.delivered() }
        #expect(ramp.rate == 1, "crowded: no faster")
        ramp.delivered()
        #expect(!ramp.crowded)
        #expect(ramp.rate == 1.1)
        // A refusal in the middle of the run starts the count again.
        ramp.refused(retryAfter: nil, at: .seconds(200), unitRandom: 0)
        for _ in 0 ..< 10 { ramp.delivered() }
        ramp.refused(retryAfter: nil, at: .seconds(300), unitRandom: 0)
        for _ in 0 ..< 19 { ramp.delivered() }
        #expect(ramp.rate == 1)
        ramp.restart()
        #expect(!ramp.crowded)
        ramp.delivered()
        #expect(ramp.rate == 1.1)
    }

    /// The hold-off and the pace together: the later of the two decides.
    @Test func theLaterOfHoldOffAndPaceDecides() {
        var ramp = DeliveryRamp(settings: settings)
        ramp.launched(at: .seconds(100))
        ramp.refused(retryAfter: nil, at: .milliseconds(100_200), unitRandom: 0)
        #expect(ramp.notBefore == .seconds(101), "the hold-off drew 0: the pace's second decides")
        ramp.refused(retryAfter: .seconds(5), at: .milliseconds(100_300), unitRandom: 0)
        #expect(ramp.notBefore == .milliseconds(105_300))
    }

    /// A flush lifts the pace with the hold-off; a later refusal brings it back.
    @Test func aFlushLiftsThePace() {
        var ramp = DeliveryRamp(settings: settings)
        ramp.launched(at: .seconds(1))
        ramp.forgetHoldOff()
        #expect(ramp.rate == nil)
        #expect(ramp.notBefore == nil)
        ramp.launched(at: .seconds(1))
        #expect(ramp.permits(inFlight: 0, at: .seconds(1)))
        ramp.refused(retryAfter: nil, at: .seconds(2), unitRandom: 0)
        #expect(ramp.rate == 1)
    }

    /// Without a pace (`rampInitialRate` 0) only the window and the hold-off count.
    @Test func noPaceLeavesTheWindowAlone() {
        var ramp = DeliveryRamp(settings: .init(initialWindow: 1, maxWindow: 4, initialRate: nil))
        ramp.launched(at: .seconds(1))
        #expect(ramp.notBefore == nil)
        #expect(ramp.permits(inFlight: 0, at: .seconds(1)))
        ramp.refused(retryAfter: nil, at: .seconds(2), unitRandom: 0)
        #expect(ramp.rate == nil)
        #expect(DeliveryRamp.Settings(maxWindow: 4, initialRate: 0).initialRate == nil)
        #expect(DeliveryRamp.Settings(maxWindow: 4, initialRate: .infinity).initialRate == nil)
        #expect(DeliveryRamp.Settings(maxWindow: 4, initialRate: .nan).initialRate == nil)
        #expect(DeliveryRamp.Settings(maxWindow: 4, initialRate: 1_000).initialRate == nil, "as fast as unpaced")
        // The slowest pace is one upload an hour, however slow the setting.
        var slow = DeliveryRamp(settings: .init(maxWindow: 4, initialRate: 1e-12))
        #expect(slow.rate == 1.0 / 3_600)
        slow.launched(at: .seconds(1))
        #expect(slow.nextStart == .seconds(3_601))
    }

    /// Off, as older releases: always the maximum, never held off.
    @Test func disabledKeepsTheMaximum() {
        var ramp = DeliveryRamp(settings: .init(enabled: false, maxWindow: 4))
        #expect(ramp.window == 4)
        ramp.refused(retryAfter: .seconds(10), at: .zero, unitRandom: 0)
        ramp.restart()
        #expect(ramp.window == 4)
        #expect(ramp.holdUntil == nil)
        ramp.launched(at: .zero)
        #expect(ramp.rate == nil)
        #expect(ramp.notBefore == nil)
    }
}

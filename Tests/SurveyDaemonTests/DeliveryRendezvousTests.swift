import Foundation
import Storage
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// An answer that completed a stage meets the stage's delivery: kept when it comes first, waited
/// for at most until the deadline the waiting call sets on the clock it is given.
@Suite(.timeLimit(.minutes(5))) struct DeliveryRendezvousTests {
    let key = UUID()

    @Test func aDeliveryBeforeTheWaitIsKeptForIt() async {
        let rendezvous = DeliveryRendezvous()
        rendezvous.expect(key)
        #expect(rendezvous.deliver(key, .delivered(response: "1")))
        #expect(await rendezvous.wait(for: key, timeout: .seconds(3600), clock: ManualClock()) == .delivered(response: "1"))
        #expect(!rendezvous.deliver(key, .delivered(response: "1")), "the expectation ended with the wait")
    }

    @Test func aDeliveryNobodyExpectsIsLeftToTheManager() {
        let rendezvous = DeliveryRendezvous()
        #expect(!rendezvous.deliver(key, .delivered(response: nil)))
        rendezvous.expect(key)
        #expect(rendezvous.cancel(key) == nil)
        #expect(!rendezvous.deliver(key, .delivered(response: nil)), "cancelled")
    }

    @Test func theWaitLastsUntilItsDeadlineOnTheGivenClock() async throws {
        let rendezvous = DeliveryRendezvous()
        let clock = ManualClock()
        rendezvous.expect(key)
        async let outcome = rendezvous.wait(for: key, timeout: .seconds(2), clock: clock)
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(1999))
        // Just before the deadline the answer still waits, and takes the delivery.
        #expect(rendezvous.deliver(key, .dead(reason: "refused")))
        #expect(await outcome == .dead(reason: "refused"))
    }

    @Test func theDeadlineEndsTheWaitWithoutAnOutcome() async throws {
        let rendezvous = DeliveryRendezvous()
        let clock = ManualClock()
        rendezvous.expect(key)
        async let outcome = rendezvous.wait(for: key, timeout: .milliseconds(1500), clock: clock)
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(1500))
        #expect(await outcome == nil)
        #expect(!rendezvous.deliver(key, .delivered(response: nil)), "a delivery after the deadline is the manager's")
    }

    @Test func aCancelledWaitEndsAtOnce() async throws {
        let rendezvous = DeliveryRendezvous()
        let clock = ManualClock()
        rendezvous.expect(key)
        let key = key
        let waiting = Task { await rendezvous.wait(for: key, timeout: .seconds(3600), clock: clock) }
        try await clock.waitForSleepers(1)
        waiting.cancel()
        #expect(await waiting.value == nil)
        #expect(clock.sleeping == 0, "no timer is left behind")
        #expect(!rendezvous.deliver(key, .delivered(response: nil)))
    }
}

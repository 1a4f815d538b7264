import ControlAPI
import Foundation
import SurveyDaemon
import SurveyTesting
import Testing

/// The session manager's time comes from its seams: the delivery wait from the clock it is
/// given, dates from its date source; durations count with their fractions of a second.
extension SessionManagerTests {
    @Test(.timeLimit(.minutes(5))) func theDeliveryWaitIsMeasuredByTheGivenClock() async throws {
        let waitClock = ManualClock()
        let m = manager(deliveryWait: .seconds(30), waitClock: waitClock)
        _ = try await m.start(StartSessionRequest())
        for words in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"], ["30"]] { _ = try await m.answer(AnswerRequest(values: words)) }
        async let last = m.answer(AnswerRequest(values: ["5"]))
        // The answer waits for its delivery on the given clock, and nothing delivers it.
        try await waitClock.waitForSleepers(1)
        let waiting = try #require(await m.openSessions().first)
        #expect(waiting.state == .awaitingDelivery(idempotencyKey: try #require(waiting.lastCompletedKey)), "shown awaiting its delivery meanwhile")
        waitClock.advance(by: .seconds(29))
        #expect(waitClock.sleeping == 1, "still waiting a second before the deadline")
        waitClock.advance(by: .seconds(1))
        let reply = try await last
        #expect(reply.session.outcome == "queued")
        #expect(waitClock.sleeping == 0)
    }

    @Test(.timeLimit(.minutes(5))) func theIdleTimeoutKeepsItsFractionOfASecond() async throws {
        let m = manager(idleTimeout: .milliseconds(1500))
        let started = try await m.start(StartSessionRequest())
        clock.advance(1.2)
        #expect(await m.closeIdleSessions() == 0, "idle 1.2 s of 1.5 s")
        #expect(try await m.answer(AnswerRequest(values: ["Kim"])).accepted)
        clock.advance(1.6)
        #expect(await m.closeIdleSessions() == 1)
        #expect(try await m.view(id: started.id).outcome == "abandoned")
    }

    @Test(.timeLimit(.minutes(5))) func theRetentionKeepsItsFractionOfASecond() async throws {
        let m = manager()
        _ = try await m.start(StartSessionRequest())
        for words in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"]] { _ = try await m.answer(AnswerRequest(values: words)) }
        #expect(try await m.answer(AnswerRequest(values: ["17"])).session.outcome == "no_target")
        clock.advance(1.2)
        #expect(try await m.compactJournal(retention: .milliseconds(1500)).retired == 0, "closed 1.2 s ago, kept 1.5 s")
        clock.advance(0.4)
        #expect(try await m.compactJournal(retention: .milliseconds(1500)).retired == 1)
    }
}

@testable import SurveyDaemon
import Testing

/// The cap on control connections, decided without channels.
@Suite(.timeLimit(.minutes(5))) struct ControlConnectionCapTests {
    static let now = ContinuousClock.now

    @Test func belowTheCapEveryConnectionIsKept() {
        var cap = ControlConnectionCap(limit: 3)
        let verdicts = (0..<3).map { _ in cap.opened(now: Self.now).verdict }
        #expect(verdicts == [.keep, .keep, .keep])
        #expect(cap.count == 3)
    }

    @Test func atTheCapTheOldestWithoutARequestInProgressIsClosed() {
        var cap = ControlConnectionCap(limit: 3)
        let ids = (0..<3).map { _ in cap.opened(now: Self.now).id }
        cap.setBusy(ids[0], true)
        let outcome1 = cap.opened(now: Self.now)
        #expect(outcome1.verdict == .close(ids[1]))
        let outcome2 = cap.opened(now: Self.now)
        #expect(outcome2.verdict == .close(ids[2]))
        #expect(cap.count == 3)
    }

    @Test func whenEveryOtherHasARequestInProgressTheNewOneIsClosed() {
        var cap = ControlConnectionCap(limit: 2)
        for _ in 0..<2 { cap.setBusy(cap.opened(now: Self.now).id, true) }
        let opened = cap.opened(now: Self.now)
        #expect(opened.verdict == .closeNew)
        #expect(cap.count == 2)
    }

    @Test func aConnectionThatFinishedItsRequestCanBeClosedAgain() {
        var cap = ControlConnectionCap(limit: 1)
        let first = cap.opened(now: Self.now).id
        cap.setBusy(first, true)
        cap.setBusy(first, false)
        let outcome3 = cap.opened(now: Self.now)
        #expect(outcome3.verdict == .close(first))
    }

    @Test func closedConnectionsFreeTheirPlace() {
        var cap = ControlConnectionCap(limit: 1)
        let first = cap.opened(now: Self.now).id
        cap.closed(first)
        cap.setBusy(first, true)  // late news of a closed connection changes nothing
        #expect(cap.count == 0)
        let outcome4 = cap.opened(now: Self.now)
        #expect(outcome4.verdict == .keep)
    }

    @Test func closesAtTheCapAreReportedAtMostOnceAMinute() {
        var cap = ControlConnectionCap(limit: 1)
        _ = cap.opened(now: Self.now)
        let outcome5 = cap.opened(now: Self.now)
        #expect(outcome5.report == 1)
        let outcome6 = cap.opened(now: Self.now + .seconds(1))
        #expect(outcome6.report == nil)
        let outcome7 = cap.opened(now: Self.now + .seconds(2))
        #expect(outcome7.report == nil)
        let outcome8 = cap.opened(now: Self.now + .seconds(61))
        #expect(outcome8.report == 3)
    }

    @Test func atShutdownEveryOpenConnectionIsNamedAndNewOnesAreClosed() {
        var cap = ControlConnectionCap(limit: 4)
        let ids = (0..<3).map { _ in cap.opened(now: Self.now).id }
        cap.closed(ids[1])
        let outcome9 = cap.quiesce()
        #expect(outcome9 == [ids[0], ids[2]])
        let outcome10 = cap.opened(now: Self.now)
        #expect(outcome10.verdict == .closeNew)
        #expect(cap.count == 2)
    }
}

import NIOCore
@testable import SurveyDaemon
import Testing

/// A control connection's deadlines, decided without a channel or a clock.
@Suite(.timeLimit(.minutes(5))) struct ControlConnectionStateMachineTests {
    typealias Machine = ControlConnection.StateMachine
    static let limits = ControlConnectionLimits(readTimeout: .seconds(10), idleTimeout: .seconds(60), maxConnections: 8)
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    static func at(_ seconds: Int64) -> NIODeadline { start + .seconds(seconds) }

    @Test func aConnectionThatSendsNothingIsClosedAfterTheReadTimeout() {
        var machine = Machine(limits: Self.limits, now: Self.start)
        #expect(machine.deadline == Self.at(10))
        let action1 = machine.timerFired(now: Self.at(5))
        #expect(action1 == .wait)
        let action2 = machine.timerFired(now: Self.at(10))
        #expect(action2 == .close)
    }

    @Test func aPartialHeadGets408() {
        var machine = Machine(limits: Self.limits, now: Self.start)
        machine.bytesArrived(20, now: Self.at(3))
        // The first request's head counts from the connection's start.
        #expect(machine.deadline == Self.at(10))
        let action3 = machine.timerFired(now: Self.at(10))
        #expect(action3 == .replyRequestTimeoutAndClose)
    }

    @Test func aPartialHeadAfterAParseErrorIsClosedWithoutA408() {
        var machine = Machine(limits: Self.limits, now: Self.start)
        machine.bytesArrived(5, now: Self.at(1))
        machine.parseErrorCaught()
        let action4 = machine.timerFired(now: Self.at(10))
        #expect(action4 == .close)
    }

    @Test func aParseErrorClosesOnceItsReplyIsWritten() {
        var machine = Machine(limits: Self.limits, now: Self.start)
        machine.bytesArrived(5, now: Self.at(1))
        machine.parseErrorCaught()
        let action5 = machine.responseEnded(now: Self.at(1))
        #expect(action5.closeWhenWritten)
    }

    @Test func aStalledBodyFailsItsReaderAndClosesOnceTheReplyIsWritten() {
        var machine = Machine(limits: Self.limits, now: Self.start)
        machine.bytesArrived(100, now: Self.at(1))
        let action6 = machine.requestPartRead(.head, now: Self.at(2))
        #expect(!action6)
        let action7 = machine.requestPartRead(.body, now: Self.at(3))
        #expect(!action7)
        // The body counts from the end of its head.
        #expect(machine.deadline == Self.at(12))
        let action8 = machine.timerFired(now: Self.at(12))
        #expect(action8 == .failBody)
        #expect(machine.deadline == Self.at(72), "one idle timeout for the route to reply")
        // The route's 408 ends the connection once it is written.
        #expect(machine.responseEnded(now: Self.at(13)).closeWhenWritten)
    }

    @Test func aFailedBodyWhoseRouteDoesNotReplyIsClosedOneIdleTimeoutLater() {
        var machine = Machine(limits: Self.limits, now: Self.start)
        _ = machine.requestPartRead(.head, now: Self.at(2))
        #expect(machine.timerFired(now: Self.at(12)) == .failBody)
        #expect(machine.timerFired(now: Self.at(40)) == .wait)
        #expect(machine.timerFired(now: Self.at(72)) == .close)
    }

    @Test func aBodyWhoseRequestWasAnsweredOrCannotBeReachedIsClosed() {
        var answered = Machine(limits: Self.limits, now: Self.start)
        _ = answered.requestPartRead(.head, now: Self.at(1))
        _ = answered.responseEnded(now: Self.at(2))
        let action11 = answered.timerFired(now: Self.at(11))
        #expect(action11 == .close)

        var unreachable = Machine(limits: Self.limits, now: Self.start)
        _ = unreachable.requestPartRead(.head, now: Self.at(1))
        let action12 = unreachable.timerFired(now: Self.at(11), canFailBody: false)
        #expect(action12 == .close)
    }

    @Test func aRequestInProgressHasNoDeadlineAndIsBusyUntilAnswered() {
        var machine = Machine(limits: Self.limits, now: Self.start)
        _ = machine.requestPartRead(.head, now: Self.at(1))
        let action13 = machine.requestPartRead(.end, now: Self.at(1))
        #expect(action13)
        #expect(machine.owesResponse)
        #expect(machine.deadline == nil)
        let action14 = machine.timerFired(now: Self.at(500))
        #expect(action14 == .nothing)
        let end = machine.responseEnded(now: Self.at(600))
        #expect(end == .init(nowIdle: true, closeWhenWritten: false))
        // Idle from the response on.
        #expect(machine.deadline == Self.at(660))
        let action15 = machine.timerFired(now: Self.at(659))
        #expect(action15 == .wait)
        let action16 = machine.timerFired(now: Self.at(660))
        #expect(action16 == .close)
    }

    @Test func theNextRequestsHeadCountsFromItsFirstByte() {
        var machine = Machine(limits: Self.limits, now: Self.start)
        _ = machine.requestPartRead(.head, now: Self.at(1))
        _ = machine.requestPartRead(.end, now: Self.at(1))
        _ = machine.responseEnded(now: Self.at(2))
        machine.bytesArrived(10, now: Self.at(55))
        #expect(machine.reading == .head(since: Self.at(55), sawBytes: true))
        #expect(machine.deadline == Self.at(65))
        let action17 = machine.timerFired(now: Self.at(62))
        #expect(action17 == .wait)
        let action18 = machine.timerFired(now: Self.at(65))
        #expect(action18 == .replyRequestTimeoutAndClose)
    }

    @Test func pipelinedRequestsStayBusyUntilTheLastIsAnswered() {
        var machine = Machine(limits: Self.limits, now: Self.start)
        for _ in 0..<2 {
            _ = machine.requestPartRead(.head, now: Self.at(1))
            _ = machine.requestPartRead(.end, now: Self.at(1))
        }
        let action19 = machine.responseEnded(now: Self.at(2))
        #expect(!action19.nowIdle)
        #expect(machine.deadline == nil)
        let action20 = machine.responseEnded(now: Self.at(3))
        #expect(action20.nowIdle)
        #expect(machine.deadline == Self.at(63))
    }

    @Test func anEmptyReadChangesNothing() {
        var machine = Machine(limits: Self.limits, now: Self.start)
        machine.bytesArrived(0, now: Self.at(1))
        #expect(machine.reading == .head(since: Self.start, sawBytes: false))
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import SurveyDaemon

/// The log writer's condition: its deadlines are on CLOCK_MONOTONIC (which a step of the wall
/// clock does not move), a timed wait nobody wakes ends at its deadline, and any duration makes
/// a valid deadline.
@Suite(.timeLimit(.minutes(5))) struct MonotonicConditionTests {
    static func monotonicNanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)
    }

    @Test func deadlinesAreOnTheMonotonicClock() {
        let before = Self.monotonicNanoseconds()
        let deadline = MonotonicCondition.deadline(after: .milliseconds(1500))
        let after = Self.monotonicNanoseconds()
        let at = Int(deadline.tv_sec) * 1_000_000_000 + Int(deadline.tv_nsec)
        #expect(at >= before + 1_500_000_000 && at <= after + 1_500_000_000)
        #expect((0..<1_000_000_000).contains(Int(deadline.tv_nsec)))
        for duration in [Duration.seconds(-5), .zero, .nanoseconds(999_999_999), .seconds(Int64.max)] {
            let edge = MonotonicCondition.deadline(after: duration)
            #expect((0..<1_000_000_000).contains(Int(edge.tv_nsec)) && Int(edge.tv_sec) * 1_000_000_000 + Int(edge.tv_nsec) >= before, "\(duration)")
        }
    }

    @Test func aWaitNobodyWakesEndsAtItsDeadline() {
        let condition = MonotonicCondition()
        condition.lock()
        defer { condition.unlock() }
        let deadline = MonotonicCondition.deadline(after: .milliseconds(20))
        var woken = true
        for _ in 0..<100 where woken { woken = condition.wait(until: deadline) }
        #expect(!woken, "the wait ended at its deadline")
        #expect(Self.monotonicNanoseconds() >= Int(deadline.tv_sec) * 1_000_000_000 + Int(deadline.tv_nsec))
    }
}

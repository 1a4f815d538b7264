import Foundation
import SurveyTesting
import Testing
@testable import Networking

@Suite(.timeLimit(.minutes(5))) struct RetryPolicyTests {
    @Test func ceilingDoublesUntilTheCap() {
        let policy = RetryPolicy()
        #expect((0 ... 10).map { policy.ceiling(attempt: $0) } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300].map { Duration.seconds($0) })
        #expect(policy.ceiling(attempt: 1000) == .seconds(300))
    }

    @Test func fullJitterScalesTheWindow() {
        let policy = RetryPolicy(base: .seconds(2), cap: .seconds(60))
        #expect(policy.delay(attempt: 0, unitRandom: 0) == .zero)
        #expect(policy.delay(attempt: 0, unitRandom: 0.5) == .seconds(1))
        #expect(policy.delay(attempt: 3, unitRandom: 0.25) == .seconds(4))
        #expect(policy.delay(attempt: 10, unitRandom: 1) == .seconds(60))
    }

    @Test func sequenceWithSeededRandomnessIsDeterministicAndInsideTheWindow() {
        let policy = RetryPolicy()
        var first = SplitMix(seed: 42)
        var second = SplitMix(seed: 42)
        let a = (0 ..< 12).map { policy.delay(attempt: $0, using: &first) }
        let b = (0 ..< 12).map { policy.delay(attempt: $0, using: &second) }
        #expect(a == b)
        for (attempt, delay) in a.enumerated() {
            #expect(delay >= .zero && delay <= policy.ceiling(attempt: attempt))
        }
    }

    @Test func retryAfterReplacesJitterAndIsCapped() {
        let policy = RetryPolicy(cap: .seconds(120))
        #expect(policy.delay(attempt: 0, retryAfter: .seconds(30), unitRandom: 0.9) == .seconds(30))
        #expect(policy.delay(attempt: 0, retryAfter: .seconds(3600), unitRandom: 0) == .seconds(120))
    }

    @Test(arguments: [
        ("120", 120.0),
        ("0", 0.0),
        (" 7 ", 7.0),
        ("Sun, 22 Nov 2026 16:00:30 GMT", 30.0),
        ("Sunday, 22-Nov-26 16:01:00 GMT", 60.0),
        ("Sun Nov 22 16:00:10 2026", 10.0),
        ("Sun, 22 Nov 2026 15:00:00 GMT", 0.0),
    ])
    func retryAfterParses(value: String, seconds: Double) {
        let now = Date(timeIntervalSince1970: 1_795_363_200) // Sun, 22 Nov 2026 16:00:00 GMT
        #expect(RetryAfter.parse(value, now: now) == .seconds(seconds))
    }

    @Test(arguments: ["", "soon", "-5", "1.5", "Sun, 99 Nov 2026"])
    func retryAfterRejectsGarbage(value: String) {
        #expect(RetryAfter.parse(value, now: Date()) == nil)
    }
}

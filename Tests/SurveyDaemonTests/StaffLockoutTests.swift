import Foundation
import Testing
@testable import SurveyDaemon

/// The lockout after wrong staff PINs, on an injected monotonic instant.
@Suite(.timeLimit(.minutes(5))) struct StaffLockoutTests {
    let start = ContinuousClock.now

    @Test func fourWrongPinsDoNotLockTheFifthDoesForFiveMinutes() {
        var lockout = StaffLockout()
        for attempt in 1...4 {
            #expect(lockout.failed(at: start) == nil)
            #expect(lockout.attemptsLeft == 5 - attempt)
        }
        #expect(lockout.remaining(at: start) == nil)
        #expect(lockout.failed(at: start) == .seconds(300))
        #expect(lockout.remaining(at: start.advanced(by: .seconds(299))) == .seconds(1))
        #expect(lockout.remaining(at: start.advanced(by: .seconds(300))) == nil)
    }

    @Test func eachFurtherLockoutDoublesUpToAnHour() {
        #expect((1...7).map { StaffLockout.lockout(number: $0) } == [300, 600, 1200, 2400, 3600, 3600, 3600].map { Duration.seconds($0) })
        var lockout = StaffLockout()
        var now = start
        var seen: [Duration] = []
        for _ in 1...6 {
            var imposed: Duration?
            for _ in 1...5 { imposed = lockout.failed(at: now) }
            seen.append(imposed ?? .zero)
            now = now.advanced(by: imposed ?? .zero)
        }
        #expect(seen == [300, 600, 1200, 2400, 3600, 3600].map { Duration.seconds($0) })
    }

    @Test func wrongPinsWhileLockedAreNotCounted() {
        var lockout = StaffLockout()
        for _ in 1...5 { lockout.failed(at: start) }
        for _ in 1...20 { #expect(lockout.failed(at: start.advanced(by: .seconds(10))) == nil) }
        #expect(lockout.lockouts == 1)
        #expect(lockout.failuresInARow == 0)
    }

    @Test func aRightPinOrAnUnlockStartsOver() {
        var lockout = StaffLockout()
        for _ in 1...5 { lockout.failed(at: start) }
        lockout.reset()
        #expect(lockout.remaining(at: start) == nil)
        for _ in 1...4 { lockout.failed(at: start) }
        #expect(lockout.failed(at: start) == .seconds(300))
    }

    @Test func aLockoutSurvivesARestartWithWhatIsLeftOfIt() {
        var lockout = StaffLockout()
        for _ in 1...5 { lockout.failed(at: start) }
        let wall = Date(timeIntervalSince1970: 1_800_000_000)
        let record = lockout.record(now: start.advanced(by: .seconds(100)), wallNow: wall.addingTimeInterval(100))
        #expect(record.lockedUntil == wall.addingTimeInterval(300))
        // Another process: another monotonic origin, 60 s later on the wall clock.
        let later = ContinuousClock.now.advanced(by: .seconds(5000))
        let restored = StaffLockout(record: record, now: later, wallNow: wall.addingTimeInterval(160))
        #expect(restored.remaining(at: later) == .seconds(140))
        #expect(restored.lockouts == 1)
        // The next lockout still doubles.
        var next = restored
        let after = later.advanced(by: .seconds(140))
        for _ in 1...4 { next.failed(at: after) }
        #expect(next.failed(at: after) == .seconds(600))
    }

    @Test func aWallClockSteppedBackNeverLengthensALockout() {
        let wall = Date(timeIntervalSince1970: 1_800_000_000)
        let record = StaffLockout.Record(failuresInARow: 0, lockouts: 1, lockedUntil: wall.addingTimeInterval(300))
        let restored = StaffLockout(record: record, now: start, wallNow: wall.addingTimeInterval(-86_400))
        #expect(restored.remaining(at: start) == .seconds(300))
        let expired = StaffLockout(record: record, now: start, wallNow: wall.addingTimeInterval(301))
        #expect(expired.remaining(at: start) == nil)
    }

    @Test func wrongPinsInARowSurviveARestart() {
        var lockout = StaffLockout()
        for _ in 1...3 { lockout.failed(at: start) }
        let restored = StaffLockout(record: lockout.record(now: start, wallNow: Date()), now: start, wallNow: Date())
        #expect(restored.attemptsLeft == 2)
    }
}

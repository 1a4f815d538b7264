import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskTesting
import NIOCore
import Synchronization
import SurveyTesting
import Testing

@testable import Kiosk

/// The welcome screen's held request: it answers a change or an hours boundary, and nothing wakes
/// it in between (the only timer it sets is its deadline), on an injected clock.
@Suite(.timeLimit(.minutes(5))) struct KioskStateHoldTests {
    /// What the kiosk shows, as the tests change it, with how often the hold looked.
    final class Kiosk: Sendable {
        struct State {
            var shown = "open:common|-|0"
            var boundary: Date?
            var looks = 0
        }
        let state = Mutex(State())
        var looks: Int { state.withLock { $0.looks } }
        @Sendable func current() -> KioskStateHold<SteppedClock>.Shown {
            state.withLock { state in
                state.looks += 1
                return .init(state: state.shown, nextBoundary: state.boundary)
            }
        }
    }

    static let wall = Date(timeIntervalSince1970: 1_800_000_000)

    static func hold(_ changes: KioskChanges, _ clock: SteppedClock) -> KioskStateHold<SteppedClock> {
        KioskStateHold(changes: changes, clock: clock, hold: .seconds(240), wallNow: { wall.addingTimeInterval(clock.now.offset.seconds) })
    }

    @Test func aStateOtherThanTheOneShownIsAnsweredAtOnceWithoutATimer() async {
        let clock = SteppedClock()
        let kiosk = Kiosk()
        let answer = await Self.hold(KioskChanges(), clock).answer(shown: "out:|-|0") { kiosk.current() }
        #expect(answer == "open:common|-|0")
        #expect(clock.sleepsAsked == 0)
    }

    @Test func aChangeAnswersEveryHeldRequest() async throws {
        let clock = SteppedClock()
        let changes = KioskChanges()
        let kiosk = Kiosk()
        let hold = Self.hold(changes, clock)
        async let first = hold.answer(shown: "open:common|-|0") { kiosk.current() }
        async let second = hold.answer(shown: "open:common|-|0") { kiosk.current() }
        try await clock.waitForSleepers(2)
        #expect(changes.waiting == 2)
        kiosk.state.withLock { $0.shown = "out:Back soon|-|0" }
        changes.signal()
        #expect(await first == "out:Back soon|-|0")
        #expect(await second == "out:Back soon|-|0")
        // Nothing of the held requests is left waiting.
        #expect(changes.waiting == 0)
        #expect(clock.sleeping == 0)
    }

    @Test func aSignalWithoutAChangeKeepsHoldingUntilTheDeadlineOnly() async throws {
        let clock = SteppedClock()
        let changes = KioskChanges()
        let kiosk = Kiosk()
        let task = Task { await Self.hold(changes, clock).answer(shown: "open:common|-|0") { kiosk.current() } }
        try await clock.waitForSleepers(1)
        changes.signal()
        try await clock.waitForLooks(kiosk, 2)
        try await clock.waitForSleepers(1)
        #expect(clock.deadlines == [.seconds(240)])
        clock.advance(by: .seconds(240))
        #expect(await task.value == "open:common|-|0")
    }

    @Test func whileNothingChangesNothingWakesTheHoldBeforeItsEnd() async throws {
        let clock = SteppedClock()
        let changes = KioskChanges()
        let kiosk = Kiosk()
        let task = Task { await Self.hold(changes, clock).answer(shown: "open:common|-|0") { kiosk.current() } }
        try await clock.waitForSleepers(1)
        // One timer, at the hold's end: no periodic one.
        #expect(clock.deadlines == [.seconds(240)])
        clock.advance(by: .seconds(239))
        try await Task.sleep(for: .milliseconds(50))
        #expect(kiosk.looks == 1)
        #expect(clock.sleepsAsked == 1)
        clock.advance(by: .seconds(1))
        // The hold ends with what the kiosk shows (the same): the page asks again.
        #expect(await task.value == "open:common|-|0")
        #expect(kiosk.looks == 2)
        #expect(clock.sleepsAsked == 1)
    }

    @Test func anHoursBoundaryAnswersTheHeldRequest() async throws {
        let clock = SteppedClock()
        let kiosk = Kiosk()
        kiosk.state.withLock { $0.boundary = Self.wall.addingTimeInterval(90) }
        let task = Task { await Self.hold(KioskChanges(), clock).answer(shown: "open:common|-|0") { kiosk.current() } }
        try await clock.waitForSleepers(1)
        // Woken just past the boundary, not before, and by nothing else.
        #expect(clock.deadlines == [.seconds(90) + KioskStateHold<SteppedClock>.pastBoundary])
        kiosk.state.withLock {
            $0.shown = "closed|-|0"
            $0.boundary = Self.wall.addingTimeInterval(3600)
        }
        clock.advance(by: .seconds(90) + KioskStateHold<SteppedClock>.pastBoundary)
        #expect(await task.value == "closed|-|0")
        #expect(kiosk.looks == 2)
    }

    @Test func aBoundaryPastTheHoldLeavesTheHoldItsOwnEnd() async throws {
        let clock = SteppedClock()
        let kiosk = Kiosk()
        kiosk.state.withLock { $0.boundary = Self.wall.addingTimeInterval(8 * 3600) }
        let task = Task { await Self.hold(KioskChanges(), clock).answer(shown: "open:common|-|0") { kiosk.current() } }
        try await clock.waitForSleepers(1)
        #expect(clock.deadlines == [.seconds(240)])
        task.cancel()
        _ = await task.value
    }

    /// Through the router: `/state?shown=` of the state shown waits for the change; of another
    /// state, or without `shown`, it answers at once.
    @Test func theRouteHoldsUntilTheKioskChanges() async throws {
        let staff = KioskStaffPageTests.FakeStaff()
        var fixture = try KioskStaffPageTests.fixture(staff)
        fixture.changes = KioskChanges()
        let changes = fixture.changes
        try await fixture.run { client in
            let now = try await client.execute(uri: "/state", method: .get)
            let shown = String(buffer: now.body)
            #expect(shown.hasPrefix("open:|"))
            let other = try await client.execute(uri: "/state?shown=closed", method: .get)
            #expect(String(buffer: other.body) == shown)
            #expect(other.headers[.cacheControl] == "no-store")
            async let held = client.execute(uri: "/state?shown=" + (shown.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? shown), method: .get)
            for _ in 0..<5000 where changes.waiting == 0 { try await Task.sleep(for: .milliseconds(1)) }
            #expect(changes.waiting == 1)
            staff.state.withLock { $0.availability = .outOfService(message: nil) }
            changes.signal()
            let answer = try await held
            #expect(String(buffer: answer.body).hasPrefix("out:|"))
        }
    }

    /// The welcome screen carries what it shows for the script; a new brand (attract images)
    /// changes it.
    @Test func theWelcomeScreenShowsItsStateAndANewBrandChangesIt() async throws {
        let staff = KioskStaffPageTests.FakeStaff()
        let fixture = try KioskStaffPageTests.fixture(staff)
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let before = try await browser.open("/")
            let state = String(buffer: try await client.execute(uri: "/state", method: .get).body)
            #expect(before.contains("data-state=\"\(state)\""))
            #expect(!before.contains("data-reload-seconds"))
            fixture.brand.replace(with: KioskBrand())
            let after = String(buffer: try await client.execute(uri: "/state", method: .get).body)
            #expect(after != state)
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

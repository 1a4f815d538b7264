import ControlAPI
import Foundation
import Kiosk
import Logging
import SurveyTesting
import Synchronization
import Testing
@testable import SurveyDaemon

/// The kiosk's staff desk: out of service, the survey chosen and the PIN's lockout, kept across a
/// restart (a new desk over the same state directory), on an injected clock.
@Suite(.timeLimit(.minutes(5))) struct KioskStaffDeskTests {
    final class Clock: Sendable {
        let origin = ContinuousClock.now
        let wallOrigin = Date(timeIntervalSince1970: 1_800_000_000)
        let offset = Mutex<Duration>(.zero)
        func advance(_ by: Duration) { offset.withLock { $0 += by } }
        var now: ContinuousClock.Instant { origin.advanced(by: offset.withLock { $0 }) }
        var wall: Date { wallOrigin.addingTimeInterval(StaffLockout.seconds(offset.withLock { $0 })) }
    }

    /// How many PINs the desk had checked.
    final class Checks: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
    }

    static let surveys = [
        KioskSurveyChoice(stage: "common", titles: [.en: "Health", .ko: "건강"]),
        KioskSurveyChoice(stage: "shop", titles: [.en: "Shop", .ko: "매장"]),
    ]

    static func desk(_ dir: TemporaryDirectory, clock: Clock, events: DaemonEvents? = nil, checks: Checks = Checks()) throws -> KioskStaffDesk {
        var logger = Logger(label: "desk")
        logger.logLevel = .critical
        return KioskStaffDesk(
            directory: dir.path, defaultStage: "common", pin: try StaffPinHash(pin: "1234", iterations: StaffPinTests.quick), surveys: surveys,
            logger: logger, events: events, now: { clock.now }, wallNow: { clock.wall },
            matches: { _, pin in
                checks.count.withLock { $0 += 1 }
                return pin == "1234"
            })
    }

    @Test func fiveWrongPinsLockTheWayInAcrossARestartUntilUnlocked() async throws {
        let dir = try TemporaryDirectory(prefix: "desk")
        defer { dir.remove() }
        let clock = Clock()
        let checks = Checks()
        let desk = try Self.desk(dir, clock: clock, checks: checks)
        for left in [4, 3, 2, 1] { #expect(await desk.verify(pin: "0000") == .wrong(attemptsLeft: left)) }
        #expect(await desk.verify(pin: "9999") == .locked(seconds: 300))
        clock.advance(.seconds(60))
        // Locked: even the right PIN is not checked.
        #expect(await desk.verify(pin: "1234") == .locked(seconds: 240))
        #expect(checks.value == 5)
        #expect(desk.view.staffPin.lockedUntil == clock.wallOrigin.addingTimeInterval(300).iso8601Seconds)

        let restarted = try Self.desk(dir, clock: clock, checks: checks)
        #expect(await restarted.verify(pin: "1234") == .locked(seconds: 240))
        #expect(await restarted.unlock(by: .operator))
        #expect(restarted.view.staffPin.lockedUntil == nil)
        #expect(await restarted.verify(pin: "1234") == .accepted)
    }

    /// A change the state directory does not take (a full disk; here its directory is gone) is
    /// refused, naming the file, and not made: what a restart would lose is never taken.
    @Test func aChangeThatCannotBeWrittenIsRefusedAndNotMade() async throws {
        let dir = try TemporaryDirectory(prefix: "desk")
        defer { dir.remove() }
        let desk = try Self.desk(dir, clock: Clock())
        dir.remove()
        await #expect(throws: KioskStaffError.self) { try await desk.setOutOfService(message: nil, by: .operator) }
        do {
            try await desk.setOutOfService(message: "Back soon", by: .operator)
        } catch {
            #expect(error.code == .notKept && error.message.contains("kiosk-staff.json"), "\(error)")
        }
        #expect(desk.availability == .open(survey: Self.surveys[0]), "the kiosk stays in service")
        await #expect(throws: KioskStaffError.self) { try await desk.chooseSurvey(Self.surveys[1].stage, by: .staff) }
        #expect(desk.availability == .open(survey: Self.surveys[0]), "and keeps its survey")
        // Once the directory takes writes again, the same change is made and kept.
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        try await desk.setOutOfService(message: "Back soon", by: .operator)
        #expect(try Self.desk(dir, clock: Clock()).availability == .outOfService(message: "Back soon"))
    }

    @Test func theRightPinStartsTheCountOver() async throws {
        let dir = try TemporaryDirectory(prefix: "desk")
        defer { dir.remove() }
        let desk = try Self.desk(dir, clock: Clock())
        for _ in 1...4 { _ = await desk.verify(pin: "4321") }
        #expect(desk.view.staffPin.wrongInARow == 4)
        #expect(await desk.verify(pin: "1234") == .accepted)
        #expect(desk.view.staffPin.wrongInARow == 0)
        #expect(await desk.verify(pin: "4321") == .wrong(attemptsLeft: 4))
    }

    @Test func outOfServiceIsKeptAcrossARestartUntilEnded() async throws {
        let dir = try TemporaryDirectory(prefix: "desk")
        defer { dir.remove() }
        let clock = Clock()
        let events = DaemonEvents()
        let stream = events.subscribe()
        let desk = try Self.desk(dir, clock: clock, events: events)
        #expect(desk.availability == .open(survey: Self.surveys[0]))
        try await desk.setOutOfService(message: "Back at 14:00", by: .staff)
        #expect(desk.availability == .outOfService(message: "Back at 14:00"))
        let restarted = try Self.desk(dir, clock: clock)
        #expect(restarted.availability == .outOfService(message: "Back at 14:00"))
        #expect(restarted.view.state == "out_of_service")
        #expect(restarted.view.outOfService?.since == clock.wallOrigin.iso8601Seconds)
        try await restarted.setInService(by: .operator)
        #expect(try Self.desk(dir, clock: clock).availability == .open(survey: Self.surveys[0]))
        events.finish()
        var actions: [String] = []
        for await event in stream where event.type == .staffAction { actions.append("\(event.action ?? "") by \(event.by ?? "")") }
        #expect(actions == ["out_of_service by staff"])
    }

    @Test(arguments: ["line\nbreak", String(repeating: "x", count: 201)])
    func aMessageThatIsNotOneShortLineIsRefused(message: String) async throws {
        let dir = try TemporaryDirectory(prefix: "desk")
        defer { dir.remove() }
        let desk = try Self.desk(dir, clock: Clock())
        await #expect(throws: KioskStaffError.self) { try await desk.setOutOfService(message: message, by: .operator) }
        #expect(desk.availability == .open(survey: Self.surveys[0]))
    }

    @Test func theSurveyChosenIsKeptAndAnUnknownOneIsRefusedWithTheList() async throws {
        let dir = try TemporaryDirectory(prefix: "desk")
        defer { dir.remove() }
        let clock = Clock()
        let desk = try Self.desk(dir, clock: clock)
        try await desk.chooseSurvey("shop", by: .staff)
        #expect(try Self.desk(dir, clock: clock).survey == Self.surveys[1])
        await #expect {
            try await desk.chooseSurvey("nope", by: .staff)
        } throws: { error in
            "\(error)".contains("\"nope\" is not one of the kiosk's surveys; the surveys allowed are common, shop")
        }
        // A reload that drops it from the list falls back to the first.
        await desk.reload(pin: nil, surveys: [Self.surveys[0]])
        #expect(desk.survey == Self.surveys[0])
        #expect(desk.view.staffPin.configured == false)
        #expect(await desk.verify(pin: "1234") == .off)
    }

    @Test func theSurveyListIsReadFromTheSetting() throws {
        let list = try KioskSurveyList.parse("common=Health survey, shop=ko:매장 설문|en:Shop survey")
        #expect(list == [
            KioskSurveyChoice(stage: "common", titles: [.en: "Health survey", .ko: "Health survey"]),
            KioskSurveyChoice(stage: "shop", titles: [.en: "Shop survey", .ko: "매장 설문"]),
        ])
        for (text, says) in [
            ("common", "entry 1 (\"common\") has no `=`"),
            ("common=A,bad stage=B", "entry 2 (\"bad stage=B\"): \"bad stage\" is not a stage's typeId"),
            ("common=A,common=B", "lists stage common a second time"),
            ("common=", "has an empty title"),
        ] {
            #expect { try KioskSurveyList.parse(text) } throws: { error in (error as? KioskSurveyListError)?.message.contains(says) == true }
        }
    }
}

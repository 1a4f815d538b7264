import Foundation
import Entities
import Hummingbird
import HummingbirdTesting
import Kiosk
import KioskTesting
import Synchronization
import Testing

/// The staff screen in the pages, over a fake staff backend: the way in, the PIN's verdicts,
/// the glance, the actions, the automatic exit, out of service, and a respondent's session left
/// as it was.
@Suite(.timeLimit(.minutes(5))) struct KioskStaffPageTests {
    final class FakeStaff: KioskStaffBackend, Sendable {
        struct State {
            var enabled = true
            var availability = KioskAvailability.open(survey: nil)
            var verdicts: [StaffPinVerdict] = []
            var pins = 0
            var actions: [String] = []
        }
        let state = Mutex(State())

        func staffScreenEnabled() async -> Bool { state.withLock { $0.enabled } }
        func availability() async -> KioskAvailability { state.withLock { $0.availability } }
        func verify(pin: String) async -> StaffPinVerdict {
            state.withLock { state in
                state.pins += 1
                if pin == "2468" { return .accepted }
                return state.verdicts.isEmpty ? .wrong(attemptsLeft: 4) : state.verdicts.removeFirst()
            }
        }
        func glance() async -> StaffGlance {
            StaffGlance(
                waiting: 3, oldestWaitingSince: Date().addingTimeInterval(-600), lastSentAt: nil,
                waitingReason: "the survey server could not be reached", connectivity: "portal",
                today: .init(started: 7, completed: 5, screenedOut: 1, abandoned: 1),
                survey: KioskSurveyChoice(stage: "common", titles: [.en: "Drinks survey"]),
                surveys: [KioskSurveyChoice(stage: "common", titles: [.en: "Drinks survey"]), KioskSurveyChoice(stage: "shop", titles: [.en: "Shop survey"])],
                languages: [.en, .ko], availability: state.withLock { $0.availability }, version: "9.9.9", deviceId: "kiosk-7", uptimeSeconds: 4000)
        }
        func sendNow() async -> StaffSendResult {
            state.withLock { $0.actions.append("send") }
            return StaffSendResult(sent: 12, waiting: 0, connectivity: "online")
        }
        func setOutOfService(_ outOfService: Bool, message: String?) async throws(KioskStaffError) {
            state.withLock { state in
                state.actions.append(outOfService ? "out:\(message ?? "")" : "in")
                state.availability = outOfService ? .outOfService(message: message) : .open(survey: nil)
            }
        }
        func chooseSurvey(_ stage: String) async throws(KioskStaffError) {
            guard stage == "shop" || stage == "common" else { throw KioskStaffError("\"\(stage)\" is not one of the kiosk's surveys") }
            state.withLock { $0.actions.append("survey:\(stage)") }
        }
        func staffSession(entered: Bool) async { state.withLock { $0.actions.append(entered ? "entered" : "left") } }
    }

    static func fixture(_ staff: FakeStaff) throws -> KioskFixture {
        var fixture = try KioskFixture(settings: KioskSettings(titles: [.en: "Drinks survey"], defaultLanguage: .en, languages: [.en, .ko]))
        fixture.staff = staff
        return fixture
    }

    /// Goes to the staff screen from the welcome screen and types `pin`.
    static func enter(_ browser: TestBrowser, pin: String = "2468") async throws -> Page {
        if browser.cookie == nil { _ = try await browser.open("/") }
        let pad = try await browser.open("/staff")
        return try await browser.post("/staff/pin", [("csrf", pad.csrf ?? ""), ("pin", pin)])
    }

    @Test func theWayInIsOnTheWelcomeScreenOnlyWithAPin() async throws {
        let staff = FakeStaff()
        try await Self.fixture(staff).run { client in
            let browser = TestBrowser(client)
            #expect(try await browser.open("/").contains("data-staff-hold=\"/staff\""))
            #expect(try await browser.open("/").contains("id=\"text-size\""))
            let pad = try await browser.open("/staff")
            #expect(pad.contains("type=\"password\" name=\"pin\" inputmode=\"numeric\""))
            #expect(!pad.contains("waiting to be sent"))
            staff.state.withLock { $0.enabled = false }
            #expect(try await browser.open("/").contains("data-staff-hold") == false)
            #expect(try await browser.open("/staff").redirects == ["/"])
        }
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            let welcome = try await browser.open("/")
            #expect(!welcome.contains("data-staff-hold"))
            #expect(try await browser.open("/staff").status == .notFound)
        }
    }

    @Test func aWrongPinSaysHowManyAreLeftALockoutSaysForHowLong() async throws {
        let staff = FakeStaff()
        staff.state.withLock { $0.verdicts = [.wrong(attemptsLeft: 1), .locked(seconds: 290)] }
        try await Self.fixture(staff).run { client in
            let browser = TestBrowser(client)
            let first = try await Self.enter(browser, pin: "1111")
            #expect(first.contains("Wrong PIN. 1 more wrong PIN will lock the staff screen."))
            #expect(!first.contains("1111"))
            let second = try await Self.enter(browser, pin: "1112")
            #expect(second.contains("the staff screen is locked for 5 more minutes"))
            #expect(second.contains("name=\"pin\""))
        }
    }

    @Test func theRightPinShowsTheGlanceInPlainWordsAndNothingOfARespondent() async throws {
        let staff = FakeStaff()
        try await Self.fixture(staff).run { client in
            let respondent = TestBrowser(client)
            try await respondent.start(.en)
            _ = try await respondent.answer("Zebulon Quartz")
            let browser = TestBrowser(client)
            let glance = try await Self.enter(browser)
            for line in [
                "3 surveys waiting to be sent, the oldest from ", "Nothing sent since the kiosk started.",
                "answers in the survey server", "(a Wi-Fi login page?)", "Why it waits: the survey server could not be reached.",
                "Started 7 · completed 5 · screened out 1 · abandoned 1", "Survey: Drinks survey (common), in en, ko.",
                "Version 9.9.9 · device kiosk-7 · running for 1h 6m", "Take out of service", "Switch survey",
            ] {
                #expect(glance.contains(line), "\(line)")
            }
            #expect(!glance.contains("Zebulon"))
            #expect(staff.state.withLock { $0.actions } == ["entered"])
        }
    }

    @Test func actionsWorkOnlyOnTheStaffScreenAndSayWhatTheyCameTo() async throws {
        let staff = FakeStaff()
        try await Self.fixture(staff).run { client in
            let outsider = TestBrowser(client)
            let welcome = try await outsider.open("/")
            let refused = try await outsider.post("/staff/send", [("csrf", welcome.hidden("csrf", in: "start-form") ?? "")])
            #expect(refused.contains("name=\"pin\""))
            #expect(staff.state.withLock { $0.actions }.isEmpty)

            let browser = TestBrowser(client)
            let glance = try await Self.enter(browser)
            let csrf = Self.csrf(glance.body)
            #expect(try await browser.post("/staff/send", [("csrf", csrf)]).contains("Sent 12. All answers have been sent."))
            #expect(try await browser.post("/staff/out-of-service", [("csrf", csrf), ("message", "Back at 14:00")]).contains("The kiosk is out of service."))
            #expect(try await browser.post("/staff/survey", [("csrf", csrf), ("stage", "nope")]).contains("is not one of the kiosk"))
            #expect(try await browser.post("/staff/survey", [("csrf", csrf), ("stage", "shop")]).contains("The next respondent starts"))
            #expect(try await browser.post("/staff/in-service", [("csrf", csrf)]).contains("The kiosk is back in service."))
            #expect(try await browser.post("/staff/done", [("csrf", csrf)]).redirects == ["/"])
            #expect(staff.state.withLock { $0.actions } == ["entered", "send", "out:Back at 14:00", "survey:shop", "in", "left"])
            // Done: the PIN is asked again.
            #expect(try await browser.open("/staff").contains("name=\"pin\""))
        }
    }

    @Test func theStaffScreenEndsAfterSixtySecondsUntouchedOrWhenARespondentStartsInAnotherBrowser() async throws {
        let staff = FakeStaff()
        let fixture = try Self.fixture(staff)
        try await fixture.run { client in
            let browser = TestBrowser(client)
            _ = try await Self.enter(browser)
            fixture.clock.advance(by: .seconds(59))
            #expect(try await browser.open("/staff").contains("Send now"))
            fixture.clock.advance(by: .seconds(59))
            #expect(try await browser.open("/staff").contains("Send now"))
            fixture.clock.advance(by: .seconds(61))
            #expect(try await browser.open("/staff").contains("name=\"pin\""))
            _ = try await Self.enter(browser)
            // A welcome screen shown in another browser leaves it; a respondent starting there ends it.
            let other = TestBrowser(client)
            _ = try await other.open("/")
            #expect(try await browser.open("/staff").contains("Send now"))
            _ = try await other.start(.en)
            #expect(try await browser.open("/staff").contains("name=\"pin\""))
        }
    }

    @Test func enteringLeavesARespondentsSessionAsItWas() async throws {
        let staff = FakeStaff()
        let fixture = try Self.fixture(staff)
        try await fixture.run { client in
            let browser = TestBrowser(client)
            try await browser.start(.en)
            let asked = try await browser.answer("Kim Minji")
            let glance = try await Self.enter(browser)
            #expect(glance.contains("Send now"))
            _ = try await browser.post("/staff/done", [("csrf", Self.csrf(glance.body))])
            let again = try await browser.open("/question")
            #expect(again.question == asked.question)
            #expect(again.position == asked.position)
        }
        #expect(await fixture.backend.sessionCount == 1)
    }

    @Test func outOfServiceTheWelcomeScreenSaysSoAndNoSessionStarts() async throws {
        let staff = FakeStaff()
        let fixture = try Self.fixture(staff)
        try await fixture.run { client in
            let browser = TestBrowser(client)
            // A welcome screen shown before, whose Start is tapped after the change.
            let before = try await browser.open("/")
            staff.state.withLock { $0.availability = .outOfService(message: "Back at 14:00") }
            let screen = try await browser.open("/")
            #expect(screen.contains("This kiosk is out of service"))
            #expect(screen.contains("Back at 14:00"))
            #expect(!screen.contains("start-form"))
            #expect(screen.contains("data-state=\"out:Back at 14:00|"))
            let korean = try await browser.open("/?lang=ko")
            #expect(korean.contains("이 키오스크는 지금 사용할 수 없습니다"))
            let tapped = try await browser.post("/start", [("csrf", Self.csrf(before.body)), ("lang", "en")])
            #expect(tapped.redirects == ["/"])
            #expect(tapped.contains("This kiosk is out of service"))
            staff.state.withLock { $0.availability = .closed }
            #expect(try await browser.open("/").contains("This kiosk is closed"))
            staff.state.withLock { $0.availability = .open(survey: KioskSurveyChoice(stage: "shop", titles: [.en: "Shop survey"])) }
            let open = try await browser.open("/")
            #expect(open.contains("Shop survey"))
            #expect(open.contains("data-state=\"open:shop|"))
            let state = try await browser.send("/state", method: .get)
            #expect(String(buffer: state.body).hasPrefix("open:shop|"))
        }
        #expect(await fixture.backend.sessionCount == 0)
    }

    @Test func aStaffPostWithoutTheCSRFTokenIsForbidden() async throws {
        try await Self.fixture(FakeStaff()).run { client in
            let browser = TestBrowser(client)
            _ = try await browser.open("/staff")
            #expect(try await browser.postRaw("/staff/pin", body: "pin=2468").status == .forbidden)
        }
    }

    /// The first CSRF token in a page.
    static func csrf(_ body: String) -> String {
        guard let range = body.range(of: "name=\"csrf\" value=\"") else { return "" }
        return String(body[range.upperBound...].prefix { $0 != "\"" })
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Kiosk
import KioskTesting
import Synchronization
import Testing

/// The staff screen on pages that other machines reach: a client not on the kiosk gets a page
/// saying why and cannot count wrong PINs; the right PIN gives a new staff cookie, so the
/// respondent's token is never staff rights; staff who walk away without Done leave nothing to
/// the next person at that browser.
@Suite(.timeLimit(.minutes(5))) struct KioskStaffNetworkTests {
    typealias FakeStaff = KioskStaffPageTests.FakeStaff

    /// A browser on another machine of the network.
    static func remote(_ client: any TestClientProtocol, _ address: String = "192.0.2.7") -> TestBrowser {
        let browser = TestBrowser(client)
        browser.headers[KioskFixture.clientHeader] = address
        return browser
    }

    @Test func aClientOnAnotherMachineGetsAPageSayingWhyAndNoPinOfItsCounts() async throws {
        let staff = FakeStaff()
        try await KioskStaffPageTests.fixture(staff).run { client in
            let browser = Self.remote(client)
            let welcome = try await browser.open("/")
            #expect(welcome.status == .ok)
            let refused = try await browser.open("/staff")
            #expect(refused.status == .forbidden)
            #expect(refused.contains("The staff screen works only on the kiosk itself"), "\(refused.body)")
            #expect(refused.contains("over the network without encryption (plain HTTP)"))
            #expect(refused.contains("kioskStaffPinOverPlainHTTP"))
            #expect(!refused.contains("name=\"pin\""))
            let csrf = try #require(welcome.hidden("csrf", in: "start-form"))
            // However many PINs it sends, none is checked: the lockout never sees them.
            for pin in ["1111", "1112", "1113", "1114", "1115", "1116", "2468"] {
                let reply = try await browser.post("/staff/pin", [("csrf", csrf), ("pin", pin)])
                #expect(reply.status == .forbidden)
                #expect(reply.contains("The staff screen works only on the kiosk itself"))
            }
            for path in ["/staff/send", "/staff/in-service", "/staff/done"] {
                #expect(try await browser.post(path, [("csrf", csrf)]).status == .forbidden, "\(path)")
            }
            #expect(browser.staffCookie == nil)
            // In Korean for a browser that chose it.
            _ = try await browser.open("/?lang=ko")
            #expect(try await browser.open("/staff").contains("직원 메뉴는 키오스크 본체에서만 쓸 수 있습니다"))
            // The survey itself is for everyone.
            #expect(try await browser.start(.en).question == "name")
        }
        #expect(staff.state.withLock { $0.pins } == 0)
        #expect(staff.state.withLock { $0.actions }.isEmpty)
    }

    @Test(arguments: ["127.0.0.1", "::1", "::ffff:127.0.0.1"])
    func aBrowserOnTheKioskItselfEnters(address: String) async throws {
        try await KioskStaffPageTests.fixture(FakeStaff()).run { client in
            let browser = Self.remote(client, address)
            let page = try await KioskStaffPageTests.enter(browser)
            #expect(page.contains("Send now"))
        }
    }

    @Test func withAnyClientAllowedAnotherMachineEnters() async throws {
        let staff = FakeStaff()
        var fixture = try KioskStaffPageTests.fixture(staff)
        fixture.settings.staffAccess = .anyClient
        try await fixture.run { client in
            let browser = Self.remote(client)
            let wrong = try await KioskStaffPageTests.enter(browser, pin: "1111")
            #expect(wrong.contains("Wrong PIN."))
            let right = try await KioskStaffPageTests.enter(browser)
            #expect(right.contains("Send now"))
        }
        #expect(staff.state.withLock { $0.pins } == 2)
    }

    @Test func theRightPinGivesANewStaffCookieAndTheRespondentsTokenIsNoStaffRight() async throws {
        try await KioskStaffPageTests.fixture(FakeStaff()).run { client in
            let browser = TestBrowser(client)
            _ = try await browser.open("/")
            let respondentToken = try #require(browser.cookie)
            let glance = try await KioskStaffPageTests.enter(browser)
            #expect(glance.contains("Send now"))
            let staffToken = try #require(browser.staffCookie)
            #expect(staffToken != respondentToken)
            #expect(staffToken.count == 43)
            let set = try #require(browser.setCookies.first { $0.hasPrefix("\(KioskApplication.staffCookieName)=") })
            for attribute in ["Path=/staff", "HttpOnly", "SameSite=Strict"] {
                #expect(set.contains(attribute), "\(set)")
            }
            // The respondent's cookie did not change: the staff's rights are not in it.
            #expect(browser.cookie == respondentToken)

            // Someone who knows the respondent's token (seen on the network, or planted before
            // the PIN was typed) gets the PIN pad, not the staff screen, and no action.
            let fixated = TestBrowser(client)
            fixated.cookie = respondentToken
            let pad = try await fixated.open("/staff")
            #expect(pad.contains("name=\"pin\""))
            #expect(!pad.contains("Send now"))
            let csrf = KioskStaffPageTests.csrf(pad.body)
            #expect(try await fixated.post("/staff/send", [("csrf", csrf)]).contains("name=\"pin\""))
            // Nor does the staff cookie in another browser.
            let stolen = TestBrowser(client)
            _ = try await stolen.open("/")
            stolen.staffCookie = staffToken
            #expect(try await stolen.open("/staff").contains("name=\"pin\""))

            // The staff's own browser is still on the staff screen; each entry makes a new token.
            #expect(try await browser.open("/staff").contains("Send now"))
            _ = try await KioskStaffPageTests.enter(browser)
            #expect(browser.staffCookie != staffToken)
            let old = TestBrowser(client)
            old.cookie = respondentToken
            old.staffCookie = staffToken
            #expect(try await old.open("/staff").contains("name=\"pin\""))

            // Done ends the login and clears the cookie.
            let done = try await browser.post("/staff/done", [("csrf", KioskStaffPageTests.csrf(browser.page.body))])
            #expect(done.redirects == ["/"])
            #expect(browser.setCookies.last?.hasPrefix("\(KioskApplication.staffCookieName)=;") == true)
            #expect(browser.setCookies.last?.contains("Max-Age=0") == true)
            #expect(browser.staffCookie == nil)
        }
    }

    @Test func aRespondentStartingInTheStaffsBrowserEndsTheStaffLogin() async throws {
        let staff = FakeStaff()
        try await KioskStaffPageTests.fixture(staff).run { client in
            let browser = TestBrowser(client)
            let glance = try await KioskStaffPageTests.enter(browser)
            #expect(glance.contains("Send now"))
            let kept = try #require(browser.staffCookie)
            // Staff walk away without Done; the next respondent starts in the same browser.
            let started = try await browser.post("/start", [("csrf", KioskStaffPageTests.csrf(glance.body)), ("lang", "en")])
            #expect(started.question == "name")
            let pad = try await browser.open("/staff")
            #expect(pad.contains("name=\"pin\""))
            #expect(!pad.contains("Send now"))
            // The cookie the browser still holds gives nothing.
            #expect(browser.staffCookie == kept)
            #expect(try await browser.post("/staff/send", [("csrf", KioskStaffPageTests.csrf(pad.body))]).contains("name=\"pin\""))
        }
        #expect(staff.state.withLock { $0.actions } == ["entered"])
    }

    @Test func theWelcomeScreenInTheStaffsBrowserEndsTheStaffLogin() async throws {
        try await KioskStaffPageTests.fixture(FakeStaff()).run { client in
            let browser = TestBrowser(client)
            #expect(try await KioskStaffPageTests.enter(browser).contains("Send now"))
            // The staff screen's own way out when left alone, and where a next person begins.
            _ = try await browser.open("/")
            #expect(try await browser.open("/staff").contains("name=\"pin\""))
        }
    }
}

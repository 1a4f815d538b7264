import HTTPTypes
import HummingbirdTesting

@testable import Kiosk
import KioskTesting
import Testing

/// The consent notice between Start and the first question: agreeing records the version shown,
/// declining keeps nothing but a count, and a notice changed while read changes nothing of what
/// was agreed to.
@Suite(.timeLimit(.minutes(5))) struct KioskConsentTests {
    static let noticeA = """
        # 설문 참여 동의
        음료 설문의 **목적**: 선호를 알아봅니다.

        - 수집 항목: 이름, 이메일, 나이
        - 보관 기간: 30일

        동의하지 않으셔도 됩니다. <script>alert(1)</script>
        """

    static func notices(_ text: String = noticeA, version: String = "aaaaaaaaaaaaaaaa") throws -> [KioskLanguage: KioskConsentNotice] {
        let ko = try KioskConsentNotice(bytes: Array(text.utf8), version: version, file: "ko.md")
        let en = try KioskConsentNotice(bytes: Array("# Before you start\nWe ask about drinks.\n\n- Collected: your name\n- Kept: 30 days".utf8), version: "e" + version.dropFirst(), file: "en.md")
        return [.ko: ko, .en: en]
    }

    static func fixture() throws -> KioskFixture {
        var fixture = try KioskFixture()
        fixture.brand = KioskBrandStore(KioskBrand(consent: try notices()))
        return fixture
    }

    /// Starts, reaches the consent page and answers it.
    static func consent(_ browser: TestBrowser, language: KioskLanguage = .ko) async throws -> Page {
        let page = try await browser.start(language)
        #expect(page.redirects == ["/consent"])
        return page
    }

    static func choose(_ choice: String, on page: Page, in browser: TestBrowser, version: String? = nil) async throws -> Page {
        try await browser.post("/consent", [
            ("csrf", page.hidden("csrf", in: "consent-form") ?? ""), ("version", version ?? page.hidden("version", in: "consent-form") ?? ""), ("choice", choice),
        ])
    }

    @Test func theNoticeComesAfterStartAndBeforeAnySession() async throws {
        let fixture = try Self.fixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await Self.consent(browser)
            #expect(page.contains("<h1 id=\"consent-title\">설문 참여 동의</h1>"))
            #expect(page.contains("<strong>목적</strong>"))
            #expect(page.contains("<li>수집 항목: 이름, 이메일, 나이</li>"))
            #expect(page.contains("value=\"agree\" class=\"button primary\">동의합니다</button>"))
            #expect(page.contains("value=\"decline\" class=\"button secondary\">동의하지 않습니다</button>"))
            #expect(page.hidden("version", in: "consent-form") == "aaaaaaaaaaaaaaaa")
            // The notice's text is escaped: no markup of its own reaches the browser.
            #expect(!page.contains("<script>alert"))
            #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            // No question before the agreement.
            #expect(try await browser.open("/question").redirects == ["/consent"])
        }
        #expect(await fixture.backend.sessionCount == 0)
    }

    @Test func agreeingStartsTheSessionWithTheVersionShown() async throws {
        let fixture = try Self.fixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await Self.consent(browser, language: .en)
            #expect(page.contains("<h1 id=\"consent-title\">Before you start</h1>"))
            let question = try await Self.choose("agree", on: page, in: browser)
            #expect(question.redirects == ["/question"])
            #expect(question.question == "name")
        }
        #expect(await fixture.backend.sessionCount == 1)
        #expect(Array(await fixture.backend.consents.values) == ["eaaaaaaaaaaaaaaa"])
    }

    @Test func decliningKeepsNothingAndIsCounted() async throws {
        let fixture = try Self.fixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await Self.consent(browser)
            let declined = try await Self.choose("decline", on: page, in: browser)
            #expect(declined.redirects == ["/declined"])
            #expect(declined.contains("<body class=\"end-page declined-page\" data-return-seconds=\"10\">"))
            #expect(declined.contains("<h1>감사합니다.</h1>"))
            // The consent form is stale now: a second tap shows the thank-you again, counts nothing.
            let again = try await Self.choose("decline", on: page, in: browser)
            #expect(again.redirects == ["/declined"])
            #expect(try await browser.open("/question").redirects == ["/declined"])
            // The welcome screen is the next person's.
            let welcome = try await browser.open("/")
            #expect(welcome.contains("start-form"))
            #expect(try await browser.open("/declined").redirects == ["/"])
            #expect(try await browser.open("/consent").redirects == ["/"])
        }
        #expect(await fixture.backend.sessionCount == 0)
        #expect(await fixture.backend.events.isEmpty)
        #expect(await fixture.backend.declines == [.ko])
    }

    @Test func aNoticeChangedWhileReadRecordsWhatWasShown() async throws {
        let fixture = try Self.fixture()
        let brand = fixture.brand
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await Self.consent(browser)
            // The operator replaces the file (SIGHUP) while the respondent reads the old one.
            brand.replace(with: KioskBrand(consent: try Self.notices("# 새 동의서\n바뀐 내용", version: "bbbbbbbbbbbbbbbb")))
            let question = try await Self.choose("agree", on: page, in: browser)
            #expect(question.redirects == ["/question"])
            // The next respondent reads, and agrees to, the new one.
            let next = TestBrowser(client)
            let newer = try await Self.consent(next)
            #expect(newer.contains("새 동의서"))
            #expect(try await Self.choose("agree", on: newer, in: next).redirects == ["/question"])
        }
        let recorded = Set(await fixture.backend.consents.values)
        #expect(recorded == ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"])
    }

    @Test func anAgreementToAVersionNotShownIsNotTaken() async throws {
        let fixture = try Self.fixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await Self.consent(browser)
            let forged = try await Self.choose("agree", on: page, in: browser, version: "cccccccccccccccc")
            #expect(forged.redirects == ["/consent"])
            let bad = try await Self.choose("maybe", on: forged, in: browser)
            #expect(bad.status == .badRequest)
        }
        #expect(await fixture.backend.sessionCount == 0)
    }

    @Test func withoutANoticeStartGoesStraightToTheFirstQuestion() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await browser.start(.en)
            #expect(page.redirects == ["/question"])
            #expect(try await browser.open("/consent").redirects == ["/question"])
        }
        #expect(Array(await fixture.backend.consents.values).isEmpty)
    }

    @Test(arguments: [
        ("plain text\nsecond line\n\nnew paragraph", [KioskConsentNotice.Block.paragraph([.init(text: "plain text second line", bold: false)]), .paragraph([.init(text: "new paragraph", bold: false)])]),
        ("## Items\n* a\n* **b**", [.heading([.init(text: "Items", bold: false)]), .list([[.init(text: "a", bold: false)], [.init(text: "b", bold: true)]])]),
        ("a ** b", [.paragraph([.init(text: "a ** b", bold: false)])]),
    ])
    func theNoticeIsReadAsPlainTextOrMarkdown(text: String, blocks: [KioskConsentNotice.Block]) throws {
        #expect(KioskConsentNotice.parse(text) == blocks)
    }

    @Test func anEmptyOrNonUTF8NoticeIsRefusedNamingTheFile() {
        #expect(throws: KioskConsentError.self) { try KioskConsentNotice(bytes: Array(" \n\n".utf8), version: "v", file: "/etc/n.md") }
        do {
            _ = try KioskConsentNotice(bytes: [0xff, 0xfe, 0x41], version: "v", file: "/etc/n.md")
            Issue.record("a notice that is not UTF-8 was taken")
        } catch {
            #expect(error.message.contains("/etc/n.md is not UTF-8"))
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Kiosk
import KioskTesting
import Logging
import Testing

/// The welcome screen, starting, the headers of every response and the static assets.
@Suite(.timeLimit(.minutes(5))) struct KioskPageTests {
    @Test func theWelcomeScreenSpeaksTheDefaultLanguageAndSetsTheBrowserCookie() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            let page = try await browser.open("/")
            #expect(page.status == .ok)
            #expect(page.contains("<html lang=\"ko\" "))
            #expect(page.contains("<h1 class=\"survey-title\">음료 설문</h1>"))
            #expect(page.contains(">시작하기</button>"))
            #expect(page.contains("<a class=\"button language is-current\" href=\"/?lang=ko\" lang=\"ko\" hreflang=\"ko\" aria-current=\"page\">한국어</a>"))
            #expect(page.contains("<a class=\"button language\" href=\"/?lang=en\" lang=\"en\" hreflang=\"en\">English</a>"))
            #expect(page.contains("<input type=\"hidden\" name=\"lang\" value=\"ko\">"))
            #expect(page.contains("<form id=\"start-form\" class=\"start\" method=\"post\" action=\"/start\" autocomplete=\"off\">"))
            let cookie = try #require(browser.setCookies.first)
            #expect(cookie.hasPrefix("kiosk="))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(cookie.contains("Path=/"))
            #expect(!cookie.contains("Secure"))
            #expect(!cookie.contains("Max-Age") && !cookie.contains("Expires"))
            // A second visit keeps the same cookie.
            _ = try await browser.open("/?lang=en")
            #expect(browser.setCookies.count == 1)
            #expect(browser.page.contains("<html lang=\"en\" "))
            #expect(browser.page.contains("<h1 class=\"survey-title\">Drinks survey</h1>"))
            #expect(browser.page.contains(">Start</button>"))
        }
    }

    /// The browser must not offer to translate a page: Chromium's translation bubble covered the
    /// text-size buttons of the Korean welcome screen under cage, and a machine translation of a
    /// question is not the wording the respondent's answer is counted against.
    @Test func noPageIsOfferedForTranslation() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            for path in ["/", "/?lang=en"] {
                let page = try await browser.open(path)
                #expect(page.contains(" translate=\"no\" "), "\(path)")
                #expect(page.contains("<meta name=\"google\" content=\"notranslate\">"), "\(path)")
            }
            let question = try await browser.start()
            #expect(question.contains(" translate=\"no\" ") && question.contains("<meta name=\"google\" content=\"notranslate\">"), "the question page")
        }
    }

    @Test func theCookieIsSecureWhenTheSettingsSaySo() async throws {
        var fixture = try KioskFixture()
        fixture.settings.secureCookie = true
        try await fixture.run { client in
            let browser = TestBrowser(client)
            try await browser.open("/")
            #expect(browser.setCookies.first?.contains("Secure") == true)
        }
    }

    @Test func startingAsksTheFirstQuestionInTheChosenLanguageWithProgress() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await browser.start(.en)
            #expect(page.redirects == ["/question"])
            #expect(page.contains("<html lang=\"en\" "))
            #expect(page.contains("<p id=\"progress-text\" class=\"progress-text\">Question 1 of 5</p>"))
            #expect(page.contains("<progress max=\"5\" value=\"1\" aria-labelledby=\"progress-text\"></progress>"))
            #expect(page.contains("<label for=\"answer\">Please enter your name.</label>"))
            #expect(page.question == "name")
            #expect(page.position == 1)
            let korean = TestBrowser(client)
            let ko = try await korean.start(.ko)
            #expect(ko.contains("<html lang=\"ko\" "))
            #expect(ko.contains(">전체 5문항 중 1번째</p>"))
            #expect(ko.contains("<label for=\"answer\">이름을 입력해주세요.</label>"))
            #expect(ko.contains(">다음</button>"))
        }
        #expect(await fixture.backend.sessionCount == 2)
    }

    @Test func theSessionIdNeverReachesTheBrowser() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            var pages = [try await browser.start(.en)]
            pages.append(try await browser.answer("Kim Minji"))
            pages.append(try await browser.back())
            let events = await fixture.backend.events
            let first = try #require(events.first)
            guard case .started(let session, _, _) = first else {
                Issue.record("the first event is not a start")
                return
            }
            #expect(session.hasPrefix("session-"))
            for page in pages {
                #expect(!page.body.contains(session))
                #expect(!page.headers.map(\.value).joined().contains(session))
            }
            #expect(!browser.setCookies.joined().contains(session))
            #expect(browser.cookie != pages[0].csrf)
        }
    }

    @Test func everyResponseCarriesTheSecurityHeaders() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            let csrf = try await browser.open("/").csrf ?? ""
            let welcome = try await browser.send("/", method: .get)
            let start = try await browser.send("/start", method: .post, body: "csrf=\(csrf)&lang=en", contentType: "application/x-www-form-urlencoded")
            let question = try await browser.send("/question", method: .get)
            let forbidden = try await TestBrowser(client).send("/answer", method: .post, body: "csrf=x", contentType: "application/x-www-form-urlencoded")
            let missing = try await browser.send("/no-such-page", method: .get)
            let css = try await browser.send(Self.assetPath(in: String(buffer: question.body), ext: "css"), method: .get)
            for response in [welcome, start, question, forbidden, missing, css] {
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'self'; script-src 'self'; style-src 'self';") == true)
                #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
                #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
                #expect(response.headers[.server] == nil)
                let names: [HTTPField.Name] = [.xContentTypeOptions, .contentSecurityPolicy, .cacheControl, HTTPField.Name("Referrer-Policy")!, HTTPField.Name("X-Frame-Options")!]
                #expect(names.allSatisfy { response.headers[values: $0].count == 1 }, "each once: \(response.headers)")
            }
            for response in [welcome, start, question, forbidden, missing] {
                #expect(response.headers[.cacheControl] == "no-store")
            }
            #expect(start.status == .seeOther)
            #expect(forbidden.status == .forbidden)
            #expect(missing.status == .notFound)
            #expect(String(buffer: missing.body).contains("Page not found") || String(buffer: missing.body).contains("페이지를 찾을 수 없습니다"))
            #expect(question.headers[.contentType] == "text/html; charset=utf-8")
        }
    }

    @Test func theAssetsAreServedWithTheirTypesAndCachedForAYear() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            let page = try await browser.open("/")
            #expect(!page.body.contains("http://") && !page.body.contains("https://") && !page.body.contains("//cdn"))
            for (ext, type, sample) in [("css", "text/css; charset=utf-8", ".score-face"), ("js", "text/javascript; charset=utf-8", "idle-dialog")] {
                let path = Self.assetPath(in: page.body, ext: ext)
                #expect(path.hasPrefix("/assets/kiosk."))
                let response = try await browser.send(path, method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == type)
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(String(buffer: response.body).contains(sample))
                #expect(browser.setCookies.count == 1)  // assets set no cookie
                let etag = try #require(response.headers[.eTag])
                let again = try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: etag])
                #expect(again.status == .notModified)
                #expect(again.body.readableBytes == 0)
            }
            let unknown = try await browser.send("/assets/kiosk.0000.css", method: .get)
            #expect(unknown.status == .notFound)
        }
    }

    @Test func settingsOutOfRangeAreRefusedWithTheirName() throws {
        let backend = try KioskFixture().backend
        var settings = KioskSettings()
        settings.idleSeconds = 0
        #expect(throws: KioskSettingsError.self) {
            _ = try KioskApplication.router(backend: backend, settings: settings, logger: .init(label: "test"))
        }
        do {
            try settings.check()
        } catch {
            #expect(error.message == "idleSeconds must be from 5 to 86400, got 0")
        }
        #expect(KioskSettings(titles: [.en: "Only English"]).title(for: .ko) == "Only English")
        #expect(KioskSettings().title(for: .en) == "Survey")
    }

    static func assetPath(in body: String, ext: String) -> String {
        let marker = ext == "css" ? "<link rel=\"stylesheet\" href=\"" : "<script src=\""
        guard let start = body.range(of: marker) else { return "/missing" }
        let rest = body[start.upperBound...]
        return String(rest[..<(rest.firstIndex(of: "\"") ?? rest.endIndex)])
    }
}

/// The application as the daemon will run it: a real HTTP server on a loopback port.
@Suite(.timeLimit(.minutes(5))) struct KioskApplicationTests {
    @Test func theApplicationServesThePagesOverHTTPWithTheCookieAndHeaders() async throws {
        let fixture = try KioskFixture()
        var logger = Logger(label: "kiosk-tests")
        logger.logLevel = .critical
        let app = try KioskApplication.application(
            backend: fixture.backend, settings: fixture.settings, address: .hostname("127.0.0.1", port: 0), logger: logger
        )
        try await app.test(.live) { client in
            let browser = TestBrowser(client)
            let page = try await browser.start(.en)
            #expect(page.status == .ok)
            #expect(page.question == "name")
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(browser.setCookies.first?.contains("SameSite=Strict") == true)
            #expect(try await browser.answer("Kim Minji").question == "email")
        }
    }
}

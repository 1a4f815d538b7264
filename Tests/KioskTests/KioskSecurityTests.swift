import Foundation
import Hummingbird
import HummingbirdTesting
import Kiosk
import KioskTesting
import Testing

/// The security model at the HTTP edge: cookie, CSRF token, strict forms, sessions that the
/// backend lost or cannot serve.
@Suite(.timeLimit(.minutes(5))) struct KioskSecurityTests {
    @Test func aPostFromABrowserWithoutTheCookieIsForbidden() async throws {
        try await KioskFixture().run { client in
            let stranger = TestBrowser(client)
            for path in ["/start", "/answer", "/skip", "/back", "/reset", "/alive"] {
                let response = try await stranger.postRaw(path, body: "csrf=x")
                #expect(response.status == .forbidden, "\(path)")
                #expect(String(buffer: response.body).contains("페이지가 만료되었습니다."))
                #expect(response.headers[.location] == nil)
            }
        }
    }

    @Test func aPostWithoutOrWithAWrongCSRFTokenIsForbidden() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await SurveyWalk.reach("name", in: browser)
            let question = "question=name&position=1&value=Kim+Minji"
            for body in [question, "csrf=&" + question, "csrf=\(KioskToken43.other)&" + question, "csrf=\(String((page.csrf ?? "").dropLast()))&" + question] {
                let response = try await browser.postRaw("/answer", body: body)
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("This page has expired."))
            }
            let welcome = try await browser.postRaw("/start", body: "lang=en")
            #expect(welcome.status == .forbidden)
            #expect(try await browser.open("/question").question == "name")  // nothing was answered
        }
        #expect(await fixture.backend.events.count == 1)
    }

    @Test func oneBrowserCannotReadOrAnswerAnothersSession() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let alice = TestBrowser(client)
            let page = try await SurveyWalk.reach("email", in: alice)
            let mallory = TestBrowser(client)
            try await mallory.open("/")
            // Mallory's own cookie with Alice's CSRF token: forbidden.
            let post = try await mallory.postRaw("/answer", body: "csrf=\(page.csrf ?? "")&question=email&position=2&value=m%40example.com")
            #expect(post.status == .forbidden)
            // Mallory sees her own (empty) state, not Alice's question.
            #expect(try await mallory.open("/question").redirects == ["/"])
            // A guessed cookie is not a browser the kiosk knows.
            let guessed = TestBrowser(client)
            guessed.cookie = KioskToken43.other
            #expect(try await guessed.postRaw("/answer", body: "csrf=\(page.csrf ?? "")").status == .forbidden)
            #expect(try await guessed.open("/question").redirects == ["/"])
            #expect(try await alice.open("/question").question == "email")
        }
    }

    @Test func severalBrowsersAnswerAtOnceEachInItsOwnSession() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let browser = TestBrowser(client)
                        try await browser.start(index.isMultiple(of: 2) ? .en : .ko)
                        try await browser.answer("Respondent \(index)")
                        return try await browser.back().body.contains("value=\"Respondent \(index)\"") ? nil : "browser \(index) lost its answer"
                    }
                }
                for try await problem in group {
                    #expect(problem == nil)
                }
            }
        }
        #expect(await fixture.backend.sessionCount == 8)
    }

    @Test func aSessionTheBackendNoLongerKnowsSendsTheBrowserToTheStart() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await SurveyWalk.reach("email", in: browser)
            guard let first = await fixture.backend.events.first, case .started(let id, _, _) = first else {
                Issue.record("no session started")
                return
            }
            await fixture.backend.forget(KioskSessionID(id))
            let answered = try await browser.answer("minji@example.com")
            #expect(answered.redirects == ["/"])
            #expect(answered.contains("survey-title"))
            #expect(try await browser.open("/question").redirects == ["/"])
            #expect(page.csrf != nil)
        }
    }

    @Test func anUnavailableBackendShowsAPageWithoutOperatorDetails() async throws {
        let fixture = try KioskFixture()
        await fixture.backend.failNextCall(with: KioskError(.unavailable, "the journal cannot be written; see `surveyctl status` on /run/surveyd/control.sock"))
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await browser.start(.en)
            #expect(page.status == .serviceUnavailable)
            #expect(page.headers[.retryAfter] == "30")
            #expect(page.contains("The survey is not available right now."))
            #expect(!page.contains("surveyctl") && !page.contains("journal") && !page.contains(".sock"))
            // The next try works.
            #expect(try await browser.start(.en).question == "name")
            await fixture.backend.failNextCall(with: KioskError(.unavailable, "the journal is full"))
            let answer = try await browser.answer("Kim Minji")
            #expect(answer.status == .serviceUnavailable)
            #expect(try await browser.open("/question").question == "name")
        }
    }

    @Test(arguments: [
        ("position=1&value=x", "field \"question\" is missing"),
        ("question=name&value=x", "field \"position\" is missing"),
        ("question=name&position=first&value=x", "field \"position\" must be a whole number from 1, not \"first\""),
        ("question=name&position=1&value=x&colour=red", "field \"colour\" is not expected here (expected: csrf, extra, pd, position, question, value)"),
        ("question=name&position=1&value=%E0", "field \"value\" is not UTF-8 text"),
    ])
    func aFormThatCannotBeReadIsABadRequestThatSaysWhy(body fields: String, message: String) async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            let page = try await SurveyWalk.reach("name", in: browser)
            let response = try await browser.postRaw("/answer", body: "csrf=\(page.csrf ?? "")&" + fields)
            #expect(response.status == .badRequest)
            #expect(String(buffer: response.body).contains("The form could not be read: \(message.replacingOccurrences(of: "\"", with: "&quot;"))."))
        }
    }

    @Test func aFormOfAnotherTypeOrTooLargeIsRefused() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            let page = try await SurveyWalk.reach("name", in: browser)
            let json = try await browser.postRaw("/answer", body: "{\"value\":\"x\"}", contentType: "application/json")
            #expect(json.status == .unsupportedMediaType)
            #expect(String(buffer: json.body).contains("send the form as application/x-www-form-urlencoded, not &quot;application/json&quot;"))
            let none = try await browser.postRaw("/answer", body: "csrf=x", contentType: nil)
            #expect(none.status == .unsupportedMediaType)
            let withCharset = try await browser.postRaw("/answer", body: "csrf=\(page.csrf ?? "")&question=name&position=1&value=Kim", contentType: "application/x-www-form-urlencoded; charset=UTF-8")
            #expect(withCharset.status == .seeOther)
            let large = try await browser.postRaw("/answer", body: "csrf=\(page.csrf ?? "")&value=" + String(repeating: "x", count: 17 * 1024))
            #expect(large.status == .contentTooLarge)
        }
    }

    @Test func theLanguageOfAStartMustBeOneTheKioskSpeaks() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            let welcome = try await browser.open("/?lang=fr")
            #expect(welcome.contains("<html lang=\"ko\" "))  // an unknown choice shows the default
            let response = try await browser.postRaw("/start", body: "csrf=\(welcome.csrf ?? "")&lang=fr")
            #expect(response.status == .badRequest)
            #expect(String(buffer: response.body).contains("field &quot;lang&quot; must be one of ko, en"))
        }
    }
}

/// A token of the right shape that the kiosk never issued.
enum KioskToken43 {
    static let other = String(repeating: "A", count: 43)
}

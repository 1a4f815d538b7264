import HTTPTypes
import HummingbirdTesting

import Kiosk
import KioskTesting
import Testing

/// The end screens, the "one moment" page, and the idle reset.
@Suite(.timeLimit(.minutes(5))) struct KioskEndTests {
    @Test func theThanksScreenReturnsToTheWelcomeScreen() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            try await browser.start(.en)
            let end = try await SurveyWalk.finish(browser)
            #expect(end.redirects == ["/end"])
            #expect(end.contains("<h1>Thank you!</h1>"))
            #expect(end.contains("Your answers have been recorded."))
            #expect(end.contains("<body class=\"end-page\" data-return-seconds=\"10\">"))
            #expect(end.contains("Back to the start in <span id=\"return-count\">10</span> seconds."))
            #expect(end.contains("<a class=\"button primary huge\" id=\"return-link\" href=\"/\">Done</a>"))
            #expect(end.contains("<noscript><meta http-equiv=\"refresh\" content=\"10;url=/\"></noscript>"))
            // The session is gone from this browser: no way back into it.
            let again = try await browser.open("/question")
            #expect(again.redirects == ["/end"])
            let welcome = try await browser.open("/")
            #expect(welcome.contains("survey-title"))
            #expect(try await browser.open("/question").redirects == ["/"])
            #expect(try await browser.open("/end").redirects == ["/"])
        }
        let events = await fixture.backend.events
        #expect(events.last.map { if case .closed(_, .thanks) = $0 { true } else { false } } == true)
    }

    @Test func theScreenedOutRespondentIsThankedWithoutBeingToldWhy() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("age", in: browser)
            let end = try await browser.answer("15")
            #expect(end.redirects == ["/end"])
            #expect(end.contains("<h1>Thank you, that is all.</h1>"))
            for word in ["screened", "eligible", "no_target", "qualify", "sorry"] {
                #expect(!end.body.lowercased().contains(word), "\(word) on the screened-out page")
            }
            let korean = TestBrowser(client)
            try await SurveyWalk.reach("tried", in: korean, language: .ko, toStage2: true)
            let ko = try await korean.answer("no")
            #expect(ko.contains("<h1>감사합니다. 설문이 끝났습니다.</h1>"))
            #expect(ko.contains("<html lang=\"ko\" "))
            #expect(ko.contains("초 후 처음 화면으로 돌아갑니다."))
        }
    }

    @Test func aStageQueuedWhileOfflineEndsWithTheAnswersSaved() async throws {
        let fixture = try KioskFixture()
        await fixture.backend.setOnline(false)
        try await fixture.run { client in
            let browser = TestBrowser(client)
            try await browser.start(.en)
            let end = try await SurveyWalk.finish(browser)
            #expect(end.redirects == ["/end"])
            #expect(end.contains("<h1>Thank you!</h1>"))
            #expect(end.contains("Your answers are saved."))
        }
    }

    @Test func theEndScreenWaitsAsLongAsTheSettingsSay() async throws {
        var fixture = try KioskFixture()
        fixture.settings.endScreenSeconds = 4
        try await fixture.run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("age", in: browser)
            let end = try await browser.answer("15")
            #expect(end.contains("data-return-seconds=\"4\""))
            #expect(end.contains("content=\"4;url=/\""))
        }
    }

    @Test func aStageBeingDeliveredShowsOneMomentUntilTheNextStage() async throws {
        let fixture = try KioskFixture()
        await fixture.backend.setHoldsDeliveries(true)
        try await fixture.run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("like", in: browser)
            let page = try await browser.answer("5")
            #expect(page.redirects == ["/question"])
            #expect(page.contains("<h1>One moment…</h1>"))
            #expect(page.contains("<noscript><meta http-equiv=\"refresh\" content=\"1;url=/question\"></noscript>"))
            #expect(page.contains("data-reload-seconds=\"1\" data-reload-url=\"/question\">"))
            try await fixture.backend.deliverWaitingStages()
            let next = try await browser.open("/question")
            #expect(next.question == "type")
            #expect(next.contains("Question 1 of 5"))
        }
    }

    @Test func theIdleResetAbandonsTheSessionAndTheNextRespondentSeesNothingOfIt() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("email", in: browser)
            let page = try await browser.back()  // the name is on the page again
            #expect(page.contains("Kim Minji"))
            let welcome = try await browser.post("/reset", [("csrf", page.csrf ?? "")])
            #expect(welcome.redirects == ["/"])
            #expect(welcome.contains("survey-title"))
            #expect(!welcome.contains("Kim Minji"))
            #expect(try await browser.open("/question").redirects == ["/"])
            // A form of the abandoned session is stale: it leads to the current page, not into the session.
            let stale = try await browser.post("/answer", [("csrf", page.csrf ?? ""), ("question", "name"), ("position", "1"), ("value", "x")])
            #expect(stale.redirects == ["/"])
            let next = try await browser.start(.en)
            #expect(next.question == "name")
            #expect(!next.contains("Kim Minji"))
            #expect(next.contains("name=\"value\" value=\"\""))
        }
        let events = await fixture.backend.events
        #expect(events.contains { if case .closed(_, .abandoned) = $0 { true } else { false } })
        #expect(await fixture.backend.sessionCount == 2)
    }

    @Test func aSessionWithoutRequestsExpiresOnTheServerToo() async throws {
        let fixture = try KioskFixture()
        let session = try await fixture.run { client -> KioskSessionID? in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("email", in: browser)
            fixture.clock.advance(by: .seconds(120 + 20 + 4))
            #expect(try await browser.open("/question").question == "email")  // still there, and touched
            fixture.clock.advance(by: .seconds(120 + 20 + 6))
            let page = try await browser.open("/question")
            #expect(page.redirects == ["/"])
            #expect(page.contains("survey-title"))
            guard let first = await fixture.backend.events.first, case .started(let id, _, _) = first else { return nil }
            return KioskSessionID(id)
        }
        #expect(await fixture.backend.outcome(of: try #require(session)) == .abandoned)
    }

    @Test func theScriptKeepsAnActiveRespondentsSessionAlive() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await SurveyWalk.reach("pairing", in: browser)
            for _ in 0..<3 {
                fixture.clock.advance(by: .seconds(100))
                let alive = try await browser.postRaw("/alive", body: "csrf=\(page.csrf ?? "")")
                #expect(alive.status == .noContent)
            }
            let next = try await browser.answer("Soju and fried chicken")
            #expect(next.question == "coupon")
        }
    }
}

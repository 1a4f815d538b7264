import Entities
import HTTPTypes
import Kiosk
import KioskTesting
import Testing

/// Skip, Back and double taps.
@Suite(.timeLimit(.minutes(5))) struct KioskNavigationTests {
    @Test func skipLeavesAnOptionalQuestionUnanswered() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("glassesPerWeek", in: browser)
            let next = try await browser.skip()
            #expect(next.question == "pairing")
            #expect(next.redirects == ["/question"])
        }
        #expect(await fixture.backend.events.contains(where: { $0.isSkip(of: "glassesPerWeek") }))
    }

    @Test func nextWithNothingEnteredSkipsAnOptionalQuestion() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("glassesPerWeek", in: browser)
            #expect(try await browser.answer([" "]).question == "pairing")
            #expect(try await browser.answer([""]).question == "coupon")
        }
        let events = await fixture.backend.events
        #expect(events.contains(where: { $0.isSkip(of: "glassesPerWeek") }))
        #expect(events.contains(where: { $0.isSkip(of: "pairing") }))
    }

    @Test func aRequiredQuestionCannotBeSkipped() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("name", in: browser)
            let page = try await browser.skip()
            #expect(page.question == "name")
            #expect(page.error == "Please answer this question.")
        }
    }

    @Test func backShowsThePreviousQuestionWithItsAnswer() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("age", in: browser)
            let page = try await browser.back()
            #expect(page.redirects == ["/question"])
            #expect(page.question == "emailConfirm")
            #expect(page.position == 3)
            #expect(page.contains("Question 3 of 5"))
            #expect(page.contains("name=\"value\" value=\"minji@example.com\""))
            #expect(page.contains("form=\"back-form\""))
            // Back to the first question: no Back there.
            try await browser.back()
            let first = try await browser.back()
            #expect(first.question == "name")
            #expect(first.contains("value=\"Kim Minji\""))
            #expect(!first.contains("form=\"back-form\""))
        }
    }

    @Test func backRestoresChoicesScoresAndTheFreeText() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("type", in: browser)
            try await browser.answer(["extra"], extra: "Cider")
            try await browser.answer(["home", "dinner"])
            var page = try await browser.back()
            #expect(page.contains("value=\"home\" checked"))
            #expect(page.contains("value=\"dinner\" checked"))
            #expect(!page.contains("value=\"party\" checked"))  // the default gives way to the answer
            page = try await browser.back()
            #expect(page.contains("value=\"extra\" checked"))
            #expect(page.contains("name=\"extra\" value=\"Cider\""))

            let other = TestBrowser(client)
            try await SurveyWalk.reach("reason", in: other, toStage2: true)
            try await other.answer("taste")
            page = try await other.back()
            #expect(page.contains("value=\"taste\" checked"))
            #expect(page.contains("name=\"extra\" value=\"\""))
        }
    }

    @Test func aChangedAnswerIsRecordedAgainAndRulesSeeTheLatestValue() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("age", in: browser)
            try await browser.back()
            try await browser.back()  // email
            let confirm = try await browser.answer("new@example.com")
            #expect(confirm.question == "emailConfirm")
            #expect(confirm.contains("value=\"minji@example.com\""))  // its own earlier answer
            let rejected = try await browser.answer("minji@example.com")
            #expect(rejected.error == "The e-mail addresses do not match.")
            let age = try await browser.answer("new@example.com")
            #expect(age.question == "age")
        }
        let emails = await fixture.backend.events.compactMap { event -> AnswerValue? in
            if case .answered(_, "email", let value) = event { return value }
            return nil
        }
        #expect(emails == [.string("minji@example.com"), .string("new@example.com")])
        #expect(await fixture.backend.events.filter { if case .wentBack = $0 { true } else { false } }.count == 2)
    }

    @Test func goingBackToTheAgeAndScreeningOutEndsTheSurvey() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("like", in: browser)
            try await browser.back()
            let end = try await browser.answer("17")
            #expect(end.redirects == ["/end"])
            #expect(end.contains("Thank you, that is all."))
        }
    }

    @Test func aDoubleTapOnNextAnswersOnceAndShowsTheNextQuestion() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let name = try await SurveyWalk.reach("name", in: browser)
            let fields = [("csrf", name.csrf ?? ""), ("question", "name"), ("position", "1"), ("value", "Kim Minji")]
            let first = try await browser.post("/answer", fields)
            #expect(first.question == "email")
            let second = try await browser.post("/answer", fields)
            #expect(second.status == .ok)
            #expect(second.question == "email")
            #expect(second.error == nil)
        }
        #expect(await fixture.backend.events.filter { if case .answered(_, "name", _) = $0 { true } else { false } }.count == 1)
    }

    @Test func aDoubleTapOnBackGoesBackOnce() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            let age = try await SurveyWalk.reach("age", in: browser)
            let fields = [("csrf", age.csrf ?? ""), ("question", "age"), ("position", "4")]
            #expect(try await browser.post("/back", fields).question == "emailConfirm")
            let second = try await browser.post("/back", fields)
            #expect(second.question == "emailConfirm")
            #expect(second.position == 3)
        }
    }

    @Test func aDoubleTapOnStartStartsOneSession() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let welcome = try await browser.open("/?lang=en")
            let fields = [("csrf", welcome.csrf ?? ""), ("lang", "en")]
            #expect(try await browser.post("/start", fields).question == "name")
            let second = try await browser.post("/start", fields)
            #expect(second.status == .ok)
            #expect(second.question == "name")
        }
        #expect(await fixture.backend.sessionCount == 1)
    }
}

extension SurveyKioskBackend.Event {
    func isSkip(of form: String) -> Bool {
        if case .skipped(_, form) = self { return true }
        return false
    }
}

import HTTPTypes

import Kiosk
import KioskTesting
import Testing

/// A rejected answer shows the same question again with the rule's text next to the field,
/// the respondent's input kept and the focus on the field; every kind of rule failure.
@Suite(.timeLimit(.minutes(5))) struct KioskRuleTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var rule: String
        var question: String
        var values: [String]
        var extra: String? = nil
        var toStage2 = false
        var language: KioskLanguage = .en
        var message: String
        /// What the page must show of the input kept.
        var kept: [String]
        var testDescription: String { "\(rule) on \(question) (\(language.rawValue))" }
    }

    static let cases: [Case] = [
        Case(rule: "not \"\"", question: "name", values: [""], message: "Please enter your name.", kept: ["value=\"\""]),
        Case(rule: "minMaxLength of a text", question: "name", values: ["K"], message: "Your name must be 2 to 20 characters long.", kept: ["value=\"K\""]),
        Case(rule: "pattern (bare)", question: "email", values: ["not-an-address"], message: "That e-mail address is not valid.", kept: ["value=\"not-an-address\""]),
        Case(rule: "sameAS \"$email\"", question: "emailConfirm", values: ["other@example.com"], message: "The e-mail addresses do not match.", kept: ["value=\"other@example.com\""]),
        Case(rule: "not 0", question: "age", values: ["0"], message: "Please enter your age.", kept: ["value=\"0\""]),
        Case(rule: "minMax", question: "age", values: ["130"], message: "Your age must be between 1 and 120.", kept: ["value=\"130\""]),
        Case(rule: "not a number", question: "age", values: ["thirty"], message: "Please enter a number.", kept: ["value=\"thirty\""]),
        Case(rule: "a number out of range", question: "age", values: ["1e999"], message: "Please enter a number.", kept: ["value=\"1e999\""]),
        Case(rule: "a score not offered", question: "like", values: ["8"], message: "Please check your answer.", kept: []),
        Case(rule: "an option not offered (a position is not a value)", question: "tried", values: ["2"], toStage2: true, message: "Please check your answer.", kept: []),
        Case(rule: "two options for one", question: "tried", values: ["yes", "no"], toStage2: true, message: "Please check your answer.", kept: []),
        Case(rule: "required, nothing chosen", question: "like", values: [], message: "Please answer this question.", kept: ["value=\"1\" autofocus>"]),
        Case(rule: "minMaxLength of a list", question: "occasions", values: ["home", "bar", "party", "dinner"], message: "Choose between 1 and 3 occasions.",
             kept: ["value=\"home\" checked autofocus>", "value=\"bar\" checked>", "value=\"party\" checked", "value=\"dinner\" checked"]),
        Case(rule: "minMaxLength of a list, none chosen", question: "occasions", values: [], message: "Choose between 1 and 3 occasions.", kept: []),
        Case(rule: "minMax of an optional number", question: "glassesPerWeek", values: ["500"], message: "Enter a number from 0 to 100.", kept: ["value=\"500\""]),
        Case(rule: "minMaxLength upper bound", question: "pairing", values: [String(repeating: "x", count: 201)], message: "Please use at most 200 characters.",
             kept: ["value=\"\(String(repeating: "x", count: 201))\""]),
        Case(rule: "pattern with flags", question: "coupon", values: ["12-abc"], message: "A coupon code looks like abc-12.", kept: ["value=\"12-abc\""]),
        Case(rule: "extra option without its text", question: "type", values: ["extra"], extra: "  ", message: "Please choose an answer, or write your own in the box.",
             kept: ["value=\"extra\" checked", "name=\"extra\" value=\"  \""]),
        Case(rule: "sameAS a literal", question: "consent", values: ["disagree"], toStage2: true, message: "You need to agree to finish the survey.",
             kept: ["value=\"disagree\" checked autofocus>", "value=\"agree\">"]),
        Case(rule: "required radio, nothing chosen", question: "tried", values: [], toStage2: true, message: "Please answer this question.", kept: []),
        Case(rule: "not \"\" (Korean)", question: "name", values: [""], language: .ko, message: "이름을 입력해주세요.", kept: []),
        Case(rule: "sameAS \"$email\" (Korean)", question: "emailConfirm", values: ["x@example.com"], language: .ko, message: "이메일이 일치하지 않습니다.", kept: ["value=\"x@example.com\""]),
        Case(rule: "not a number (Korean)", question: "age", values: ["서른"], language: .ko, message: "숫자를 입력해 주세요.", kept: ["value=\"서른\""]),
        Case(rule: "minMaxLength of a list (Korean)", question: "occasions", values: [], language: .ko, message: "1개에서 3개까지 선택해주세요.", kept: []),
    ]

    @Test(arguments: cases)
    func aRejectedAnswerShowsTheRuleTextAndKeepsTheInput(_ rule: Case) async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let before = try await SurveyWalk.reach(rule.question, in: browser, language: rule.language, toStage2: rule.toStage2)
            let page = try await browser.answer(rule.values, extra: rule.extra)
            #expect(page.redirects == ["/question"])
            #expect(page.status == .ok)
            #expect(page.question == rule.question)
            #expect(page.position == before.position)
            #expect(page.error == rule.message)
            for kept in rule.kept {
                #expect(page.contains(kept), "kept input \(kept)")
            }
            if page.contains("id=\"answer\"") {
                #expect(page.contains("autofocus aria-invalid=\"true\" aria-describedby=\"answer-error\">"))
            } else {
                #expect(page.contains("aria-describedby=\"answer-error\">"))
            }
            // Shown once: a reload shows the question without the message.
            let reloaded = try await browser.open("/question")
            #expect(reloaded.error == nil)
            #expect(reloaded.question == rule.question)
        }
        let answered = await fixture.backend.events.contains { event in
            if case .answered(_, rule.question, _) = event { return true }
            return false
        }
        #expect(!answered)
    }

    @Test func theRespondentsInputIsEscaped() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("name", in: browser)
            let page = try await browser.answer("<b>\"x\"</b>")  // 10 characters: accepted
            #expect(page.question == "email")
            let back = try await browser.back()
            #expect(back.contains("value=\"&lt;b&gt;&quot;x&quot;&lt;/b&gt;\""))
            #expect(!back.contains("<b>"))
        }
    }

    @Test func aCouponIsAcceptedWhateverItsCaseAsTheFlagSays() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("coupon", in: browser)
            let end = try await browser.answer("ABC-12")
            #expect(end.redirects == ["/end"])
        }
    }
}

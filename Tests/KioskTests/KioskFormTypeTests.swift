import Entities

import Kiosk
import KioskTesting
import Testing

/// Each form type of the contract renders as the HTML control a person expects, from the
/// questionnaire, in the session's language.
@Suite(.timeLimit(.minutes(5))) struct KioskFormTypeTests {
    @Test func textAsksWithALabelledInputAndThePlaceholder() async throws {
        try await KioskFixture().run { client in
            let page = try await SurveyWalk.reach("name", in: TestBrowser(client))
            #expect(page.contains("<h1 class=\"question-text\"><label for=\"answer\">Please enter your name.</label></h1>"))
            #expect(page.contains("<input id=\"answer\" class=\"text-input\" type=\"text\" name=\"value\" value=\"\" placeholder=\"Name\" inputmode=\"text\" autocomplete=\"off\""))
            #expect(page.contains("<form id=\"answer-form\" class=\"question\" method=\"post\" action=\"/answer\" autocomplete=\"off\" novalidate>"))
            #expect(!page.contains("form=\"skip-form\""))  // required: no Skip
            #expect(!page.contains("form=\"back-form\""))  // first question: no Back
            #expect(page.count(">Next</button>") == 1)
        }
    }

    @Test func aTextWhoseRuleIsAnEmailPatternBringsTheEmailKeyboard() async throws {
        try await KioskFixture().run { client in
            let page = try await SurveyWalk.reach("email", in: TestBrowser(client))
            #expect(page.contains("placeholder=\"000@gmail.com\" inputmode=\"email\""))
            #expect(page.contains("<button type=\"submit\" form=\"back-form\" class=\"button secondary\">Back</button>"))
        }
    }

    @Test func aTextWhosePlaceholderIsAnEmailAddressBringsTheEmailKeyboardToo() async throws {
        try await KioskFixture().run { client in
            let page = try await SurveyWalk.reach("emailConfirm", in: TestBrowser(client))
            #expect(page.contains("placeholder=\"000@gmail.com\" inputmode=\"email\""))
        }
    }

    @Test func numberAsksWithTheDecimalKeyboard() async throws {
        try await KioskFixture().run { client in
            let page = try await SurveyWalk.reach("age", in: TestBrowser(client))
            #expect(page.contains("<label for=\"answer\">How old are you?</label>"))
            #expect(page.contains("name=\"value\" value=\"\" placeholder=\"0\" inputmode=\"decimal\""))
        }
    }

    @Test func aScoreIsSevenLargeRadioButtonsWithoutADefaultWhenNoneIsGiven() async throws {
        try await KioskFixture().run { client in
            let page = try await SurveyWalk.reach("like", in: TestBrowser(client))
            #expect(page.contains("<legend><h1 class=\"question-text\">How much do you like alcoholic drinks?</h1></legend>"))
            for score in 1...7 {
                #expect(page.contains("<label class=\"score\" for=\"score-\(score)\"><input type=\"radio\" id=\"score-\(score)\" name=\"value\" value=\"\(score)\"><span class=\"score-face\"><span class=\"score-number\">\(score)</span></span></label>"))
            }
            #expect(!page.contains(" checked"))
            #expect(page.contains("Question 5 of 5"))
        }
    }

    @Test func aScoreWithADefaultHasItSelected() async throws {
        try await KioskFixture().run { client in
            let page = try await SurveyWalk.reach("recommend", in: TestBrowser(client), toStage2: true)
            #expect(page.contains("id=\"score-4\" name=\"value\" value=\"4\" checked>"))
            #expect(page.count(" checked") == 1)
            #expect(page.contains("<span class=\"optional\">Optional</span>"))
            #expect(page.contains("<button type=\"submit\" form=\"skip-form\" class=\"button secondary\">Skip</button>"))
        }
    }

    @Test func radioIsRadioButtonsWithTheirLabels() async throws {
        try await KioskFixture().run { client in
            let page = try await SurveyWalk.reach("tried", in: TestBrowser(client), toStage2: true)
            #expect(page.contains("<fieldset class=\"field choices\">"))
            #expect(page.contains("<label class=\"choice\" for=\"option-1\"><input type=\"radio\" id=\"option-1\" name=\"value\" value=\"yes\"><span class=\"choice-label\">Yes</span></label>"))
            #expect(page.contains("<label class=\"choice\" for=\"option-2\"><input type=\"radio\" id=\"option-2\" name=\"value\" value=\"no\"><span class=\"choice-label\">No</span></label>"))
            #expect(!page.contains("name=\"extra\""))
            // The first question of a follow-up stage: the previous stage is submitted, no Back.
            #expect(page.contains("Question 1 of 4"))
            #expect(!page.contains("form=\"back-form\""))
        }
    }

    @Test func checkboxIsCheckboxesWithTheDefaultsChecked() async throws {
        try await KioskFixture().run { client in
            let page = try await SurveyWalk.reach("occasions", in: TestBrowser(client))
            #expect(page.contains("<input type=\"checkbox\" id=\"option-1\" name=\"value\" value=\"home\"><span class=\"choice-label\">At home</span>"))
            #expect(page.contains("<input type=\"checkbox\" id=\"option-3\" name=\"value\" value=\"party\" checked><span class=\"choice-label\">At parties</span>"))
            #expect(page.count(" checked") == 1)
            #expect(page.contains("When do you usually drink? (up to 3)"))
        }
    }

    @Test func radioWithInputHasTheFreeTextFieldAfterTheExtraOption() async throws {
        try await KioskFixture().run { client in
            let page = try await SurveyWalk.reach("type", in: TestBrowser(client))
            #expect(page.contains("<input type=\"radio\" id=\"option-1\" name=\"value\" value=\"beer\"><span class=\"choice-label\">Beer</span>"))
            #expect(page.contains("<input type=\"radio\" id=\"option-5\" name=\"value\" value=\"extra\"><span class=\"choice-label\">Other</span></label>"))
            // The free-text field follows the group: the group holds its radio buttons only.
            #expect(page.contains("</fieldset>\n<div class=\"field extra\">\n<label for=\"extra-text\" class=\"extra-label\">Please specify</label>\n<input id=\"extra-text\" class=\"text-input\" type=\"text\" name=\"extra\" value=\"\" data-extra-for=\"option-5\" autocomplete=\"off\""))
            #expect(page.count("name=\"extra\"") == 1)
        }
    }

    @Test func theFreeTextOfTheExtraOptionIsTheAnswer() async throws {
        let fixture = try KioskFixture()
        try await fixture.run { client in
            let browser = TestBrowser(client)
            try await SurveyWalk.reach("type", in: browser)
            let next = try await browser.answer(["extra"], extra: "Cider")
            #expect(next.question == "occasions")
        }
        #expect(await fixture.backend.events.contains { if case .answered(_, "type", .string("Cider")) = $0 { true } else { false } })
    }

    @Test func theFormsSpeakKoreanInAKoreanSession() async throws {
        try await KioskFixture().run { client in
            let browser = TestBrowser(client)
            let age = try await SurveyWalk.reach("age", in: browser, language: .ko)
            #expect(age.contains("<html lang=\"ko\" "))
            #expect(age.contains("<label for=\"answer\">나이를 입력해주세요.</label>"))
            #expect(age.contains(">이전</button>"))
            #expect(age.contains(">전체 5문항 중 4번째</p>"))
            #expect(age.contains("<h2 id=\"idle-title\">아직 계신가요?</h2>"))
            let type = try await SurveyWalk.reach("type", in: TestBrowser(client), language: .ko)
            #expect(type.contains(">직접 입력</label>"))
            #expect(type.contains("<legend><h1 class=\"question-text\">어떤 종류의 술을 좋아하시나요?</h1></legend>"))
            #expect(type.contains("value=\"beer\"><span class=\"choice-label\">맥주</span>"))
            #expect(type.contains("value=\"extra\"><span class=\"choice-label\">기타</span>"))
        }
    }

    @Test func everyQuestionPageCarriesTheIdleOverlayAndItsSettings() async throws {
        try await KioskFixture().run { client in
            let page = try await SurveyWalk.reach("name", in: TestBrowser(client))
            #expect(page.contains("<body class=\"question-page\" data-idle-seconds=\"120\" data-countdown-seconds=\"20\">"))
            #expect(page.contains("<dialog id=\"idle-dialog\" aria-labelledby=\"idle-title\" aria-describedby=\"idle-text\">"))
            #expect(page.contains("<p id=\"idle-text\">The survey will restart in <span id=\"idle-count\">20</span> seconds.</p>"))
            #expect(page.contains("<form id=\"reset-form\" method=\"post\" action=\"/reset\" hidden>"))
            // Without scripts, the page itself comes back after the session expired.
            #expect(page.contains("<noscript><meta http-equiv=\"refresh\" content=\"146;url=/question\"></noscript>"))
        }
    }
}

import Entities
import Foundation
import KioskTesting
import SurveyTesting
import Testing

@testable import Kiosk

/// The templates on their own: escaping of everything a questionnaire says, labelled scales,
/// and what a page costs to render.
@Suite(.timeLimit(.minutes(5))) struct KioskRendererTests {
    let renderer: KioskRenderer

    init() throws {
        renderer = try KioskRenderer(settings: KioskSettings(titles: [.en: "<i>Survey</i> & co"]), assets: KioskAssets())
    }

    static let hostile = "<script>alert(\"x\")</script>&'"
    static let escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"

    func view(_ form: Form, value: AnswerValue? = nil, position: Int = 2) -> (KioskQuestion, RespondentView) {
        let question = KioskQuestion(form: form, currentValue: value)
        let view = RespondentView(
            session: KioskSessionID("s"), stage: "common", language: .en, state: .asking(question),
            position: position, total: 3, canGoBack: position > 1
        )
        return (question, view)
    }

    @Test func everythingFromTheQuestionnaireIsEscaped() throws {
        let options = [ChoiceOption(label: Self.hostile, value: Self.hostile), ChoiceOption(label: "Other", value: ChoiceOption.extraValue)]
        let forms = [
            Form(name: Self.hostile, question: Self.hostile, isRequired: false, input: .text(placeholder: Self.hostile), rules: []),
            Form(name: "c", question: Self.hostile, isRequired: true, input: .choiceWithInput(options: options), rules: []),
            Form(name: "s", question: "Score", isRequired: true, input: .score(options: [ChoiceOption(label: Self.hostile, value: "3")], defaultScore: nil), rules: []),
        ]
        for form in forms {
            let (question, view) = view(form, value: .string(Self.hostile))
            let html = renderer.question(question, view: view, csrf: "token", rejected: (.rule(message: Self.hostile), PostedAnswer(values: [Self.hostile], extra: Self.hostile)))
            #expect(!html.contains("<script>alert"))
            #expect(html.contains(Self.escaped))
            #expect(html.contains("<p id=\"answer-error\" class=\"error\" role=\"alert\">\(Self.escaped)</p>"))
        }
        let welcome = renderer.welcome(language: .en, csrf: "token")
        #expect(welcome.contains("<h1 class=\"survey-title\">&lt;i&gt;Survey&lt;/i&gt; &amp; co</h1>"))
        #expect(welcome.contains("<title>&lt;i&gt;Survey&lt;/i&gt; &amp; co</title>"))
    }

    @Test func aScaleWithLabelsShowsThemUnderTheScores() {
        let labels = ["Never", "", "", "Sometimes", "", "", "Always"]
        let options = labels.enumerated().map { ChoiceOption(label: $0.element.isEmpty ? "\($0.offset + 1)" : $0.element, value: "\($0.offset + 1)", checked: $0.offset == 3) }
        let form = Form(name: "often", question: "How often?", isRequired: true, input: .score(options: options, defaultScore: 4), rules: [])
        let (question, view) = view(form)
        let html = renderer.question(question, view: view, csrf: "t", rejected: nil)
        #expect(html.contains("<fieldset class=\"field scale has-labels\">"))
        #expect(html.contains("value=\"1\"><span class=\"score-face\"><span class=\"score-number\">1</span><span class=\"score-label\">Never</span></span>"))
        #expect(html.contains("value=\"2\"><span class=\"score-face\"><span class=\"score-number\">2</span></span>"))
        #expect(html.contains("value=\"4\" checked><span class=\"score-face\"><span class=\"score-number\">4</span><span class=\"score-label\">Sometimes</span>"))
        // The respondent's earlier score wins over the default.
        let (again, againView) = self.view(form, value: .integer(7))
        let back = renderer.question(again, view: againView, csrf: "t", rejected: nil)
        #expect(back.contains("value=\"7\" checked>"))
        #expect(!back.contains("value=\"4\" checked>"))
    }

    @Test func numbersAreShownAsAPersonWritesThem() {
        let form = Form(name: "n", question: "How many?", isRequired: true, input: .number(placeholder: 2.5), rules: [])
        let (question, view) = view(form, value: .number(30))
        let html = renderer.question(question, view: view, csrf: "t", rejected: nil)
        #expect(html.contains("value=\"30\" placeholder=\"2.5\" inputmode=\"decimal\""))
        #expect(EnteredAnswer.format(0.25) == "0.25")
        #expect(EnteredAnswer.format(-3) == "-3")
    }

    @Test func theTemplatesUseNoUnescapedTags() {
        for template in KioskRenderer.templates {
            let text = String(decoding: template.bytes, as: UTF8.self)
            #expect(!text.contains("{{{"), "\(template.name)")
            #expect(!text.contains("{{&"), "\(template.name)")
        }
    }

    /// A first view is kept once and given to each respondent with their own token; a page with
    /// anything the respondent entered is rendered afresh and never kept.
    @Test func firstViewsAreKeptWithoutTheirToken() throws {
        let form = Form(name: "email", question: "Your e-mail?", isRequired: false, input: .text(placeholder: "you@example.com"), rules: [])
        let (question, view) = view(form)
        let first = renderer.question(question, view: view, csrf: "token-one", rejected: nil)
        let second = renderer.question(question, view: view, csrf: "token-two", rejected: nil)
        #expect(renderer.firstViews.count == 1)
        #expect(first.components(separatedBy: "token-one").count == 5, "the answer, skip, back and reset forms carry the token")
        #expect(!first.contains(renderer.firstViews.placeholder))
        #expect(second == first.replacingOccurrences(of: "token-one", with: "token-two"))
        let uncached = try KioskRenderer(settings: KioskSettings(titles: [.en: "<i>Survey</i> & co"]), assets: KioskAssets())
        #expect(first == uncached.renderQuestion(question, view: view, csrf: "token-one", rejected: nil))

        // Another language, questionnaire text, position, stage length or Back button is another
        // page, and shows what it should.
        var korean = view
        korean.language = .ko
        #expect(renderer.question(question, view: korean, csrf: "t", rejected: nil).contains("<html lang=\"ko\""))
        let (reworded, rewordedView) = self.view(Form(name: "email", question: "Your address?", isRequired: false, input: .text(placeholder: nil), rules: []))
        #expect(renderer.question(reworded, view: rewordedView, csrf: "t", rejected: nil).contains("Your address?"))
        var third = view
        third.position = 3
        #expect(renderer.question(question, view: third, csrf: "t", rejected: nil).contains("3 of 3"))
        var longer = view
        longer.total = 9
        #expect(renderer.question(question, view: longer, csrf: "t", rejected: nil).contains("2 of 9"))
        var noBack = view
        noBack.canGoBack = false
        #expect(!renderer.question(question, view: noBack, csrf: "t", rejected: nil).contains("action=\"/back\""))
        #expect(first.contains("action=\"/back\""))
        #expect(renderer.firstViews.count == 6)

        // A page with the respondent's earlier answer, or a rejected input, is never kept: a later
        // first view of a question not shown before shows neither.
        let fresh = Form(name: "phone", question: "Your phone?", isRequired: false, input: .text(placeholder: nil), rules: [])
        let (answered, answeredView) = self.view(fresh, value: .string("010-1234-5678"))
        #expect(renderer.question(answered, view: answeredView, csrf: "t", rejected: nil).contains("value=\"010-1234-5678\""))
        let (rejected, rejectedView) = self.view(fresh)
        let posted = PostedAnswer(values: ["not-a-number"], extra: nil)
        #expect(renderer.question(rejected, view: rejectedView, csrf: "t", rejected: (.rule(message: "A phone number, please"), posted)).contains("value=\"not-a-number\""))
        #expect(renderer.firstViews.count == 6)
        let later = renderer.question(rejected, view: rejectedView, csrf: "t", rejected: nil)
        #expect(!later.contains("010-1234-5678") && !later.contains("not-a-number") && !later.contains("A phone number, please"))
        #expect(renderer.firstViews.count == 7)

        // Welcome screens too, one per language.
        let welcome = renderer.welcome(language: .en, csrf: "token-one")
        #expect(renderer.welcome(language: .en, csrf: "token-two") == welcome.replacingOccurrences(of: "token-one", with: "token-two"))
        #expect(renderer.welcomes.count == 1)
    }

    @Test func theCacheStartsOverWhenFull() {
        let cache = PageCache<Int>(limit: 2)
        var renders = 0
        for key in [1, 2, 1, 3, 1] {
            _ = cache.page(key, csrf: "c") { token in
                renders += 1
                return "<p>\(key) \(token)</p>"
            }
        }
        #expect(renders == 4, "1 and 2 rendered, 1 kept, 3 started over, 1 rendered again")
        #expect(cache.count == 2)
        #expect(cache.page(3, csrf: "xyz") { _ in "" } == "<p>3 xyz</p>")
    }

    /// Prints what a question page costs to render; asserts nothing about time.
    @Test func aPageRenderCostsLittle() throws {
        let definitions = try KioskFixture.definitions()
        let form = try #require(definitions.questionnaire("1", .ko)?.form(named: "type"))
        let (question, view) = view(form, value: .string("wine"))
        var bytes = 0
        let rounds = 200
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for _ in 0..<rounds {
                bytes += renderer.question(question, view: view, csrf: "token", rejected: nil).utf8.count
            }
        }
        let perPage = elapsed / rounds
        report("kiosk page render: \(perPage) per page (\(bytes / rounds) bytes), \(rounds) rounds, debug build")
        #expect(bytes > rounds * 1000)
    }
}

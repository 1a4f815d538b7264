import Mustache
import Testing

@testable import Kiosk

/// The page values answer every template key themselves (`MustacheParent`) with what reflection
/// would find, so a property added to a page value without its key cannot go missing silently.
@Suite(.timeLimit(.minutes(5))) struct PageModelKeyTests {
    /// What `Mirror` finds under each stored property's name that `child(named:)` does not give
    /// back the same (an absent optional is nil on both sides).
    static func differences(_ value: some MustacheParent) -> [String] {
        var differences: [String] = []
        for case let (label?, stored) in Mirror(reflecting: value).children {
            let mirrored = Mirror(reflecting: stored)
            let expected: Any? = mirrored.displayStyle == .optional ? mirrored.children.first?.value : stored
            let given = value.child(named: label)
            let same = switch (expected, given) {
            case (nil, nil): true
            case let (expected?, given?): String(reflecting: expected) == String(reflecting: given)
            default: false
            }
            if !same { differences.append("\(type(of: value)).\(label): \(String(describing: expected)) against \(String(describing: given))") }
        }
        if value.child(named: "noSuchKey") != nil { differences.append("\(type(of: value)) answers an unknown key") }
        return differences
    }

    static let frame = PageFrame(
        lang: "en", pageTitle: "title", css: "/a.css", js: "/a.js", keyboard: "onscreen", keyboardCSS: "/k.css", keyboardJS: "/k.js",
        bodyClass: "question-page", idleSeconds: 120,
        countdownSeconds: 20, returnSeconds: 10, reload: Refresh(seconds: 1, url: "/question"), noscriptRefresh: Refresh(seconds: 2, url: "/"),
        brandCSS: "/brand/accent.1.css", staffHold: "/staff", state: "open:common", textSize: .of(.ko)
    )

    static let glance = KioskRenderer.Glance(
        sending: ["All answers have been sent."], today: "Started 1", kiosk: ["In service."], problems: ["Call the administrator."],
        inService: true, hasSurveys: true, surveys: [KioskRenderer.StaffSurveyOption(stage: "common", title: "Drinks", current: false)])

    static let consentBlocks = [
        ConsentBlock(.heading([.init(text: "Items", bold: false)])), ConsentBlock(.paragraph([.init(text: "Why", bold: true)])),
        ConsentBlock(.list([[.init(text: "name", bold: false)]])),
    ]

    @Test func everyStoredPropertyIsAnsweredByName() {
        let option = OptionControl(optionID: "option-1", inputType: "radio", optionValue: "wine", optionLabel: "Wine", checked: true, takesFocus: true)
        let extra = ExtraField(extraText: "text", extraLabel: "Please specify", extraFor: "option-2")
        let score = ScoreControl(score: 3, scoreLabel: "middle", selected: true, scoreTakesFocus: true)
        let values: [any MustacheParent] = [
            Self.frame,
            Refresh(seconds: 5, url: "/end"),
            WelcomePage(page: Self.frame, s: .en, surveyTitle: "Survey", logo: "/brand/logo.1.svg", offersLanguages: true, languages: [LanguageChoice(code: "ko", name: "한국어", current: true)], csrf: "token", chosenLanguage: "ko"),
            LanguageChoice(code: "en", name: "English", current: false),
            AttractLoop(attractSeconds: 60, attractImages: ["/brand/attract.1.png"], attractTitle: "Survey", attractTouch: "Touch to start"),
            QuestionPage(
                page: Self.frame, s: .ko, progressText: "1 of 5", position: 1, total: 5, csrf: "token", name: "type", question: "Which?",
                isOptional: true, error: "wrong", text: TextControl(entered: "x", placeholder: "p", inputmode: "text"),
                choices: ChoiceControl(isCheckbox: false, options: [option], extraField: extra),
                scale: ScaleControl(scores: [score], hasLabels: true), canGoBack: true, canSkip: true
            ),
            TextControl(entered: "30", placeholder: "0", inputmode: "decimal"),
            ChoiceControl(isCheckbox: true, options: [option, option], extraField: extra),
            option, extra,
            ScaleControl(scores: [score], hasLabels: false), score,
            EndPage(page: Self.frame, s: .en, heading: "Thanks", message: "Recorded", seconds: 10),
            MessagePage(page: Self.frame, s: .en, heading: "Expired", message: "Start again", detail: "detail", showStartOver: true),
            KioskStrings.en, KioskStrings.ko,
            TextSizeControl.of(.en), TextSizeControl.Option(step: 2, glyph: "A++", name: "Largest text"),
            KioskRenderer.StaffPage(page: Self.frame, w: .init(StaffWords(language: .en)), csrf: "token", flash: "Sent 3.", askPin: false, glance: Self.glance),
            Self.glance, KioskRenderer.StaffSurveyOption(stage: "shop", title: "Shop", current: true), KioskRenderer.StaffTexts(StaffWords(language: .ko)),
            ConsentPage(page: Self.frame, s: .ko, heading: "동의", blocks: Self.consentBlocks, csrf: "token", version: "0123456789abcdef"),
        ] + Self.consentBlocks.map { $0 as any MustacheParent } + [
            ConsentList(listItems: [ConsentLine([.init(text: "a", bold: true)])]), ConsentLine([.init(text: "a", bold: false)]),
            ConsentSpan(.init(text: "b", bold: true)),
        ]
        for value in values {
            #expect(Self.differences(value) == [])
        }
        #expect(Mirror(reflecting: KioskStrings.en).children.count > 30)
    }
}

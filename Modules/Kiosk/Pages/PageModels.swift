/// The values the templates read (through reflection: a property's name is its template key).
/// Names are unique across nesting levels, because a Mustache key missing in an inner object
/// is looked up in the outer ones.

/// What the layout of every page reads.
struct PageFrame: Sendable {
    var lang: String
    var pageTitle: String
    var css: String
    var js: String
    /// `onscreen` or `system`, on `<html data-keyboard>`; with `onscreen`, the keyboard's assets.
    var keyboard: String
    var keyboardCSS: String?
    var keyboardJS: String?
    var bodyClass: String
    /// Question pages: the idle time and the countdown of "Are you still there?" (for the script).
    var idleSeconds: Int?
    var countdownSeconds: Int?
    /// End screens: when the welcome screen returns (for the script's countdown).
    var returnSeconds: Int?
    /// Go to another page after a while: the script does it, and a `<meta http-equiv=refresh>`
    /// inside `<noscript>` does it without scripts (a timed refresh is left to browsers without
    /// scripts, where nothing else can do it).
    var reload: Refresh?
    /// The same for browsers without scripts only (where the script does it its own way: the
    /// idle overlay, the end screen's countdown).
    var noscriptRefresh: Refresh?
    /// The style sheet of the brand's accent colour, after the pages' own.
    var brandCSS: String?
    /// Where a 3-second press on the page's heading leads (the staff screen), when it is on.
    var staffHold: String?
    /// What the welcome screen shows of the kiosk's state: the script reloads the page when
    /// `/state` says something else.
    var state: String?
    /// The respondent's text size buttons (shown by the script); nil on the staff screen.
    var textSize: TextSizeControl?
}

/// Three text sizes a respondent can choose, kept for their session only (the script forgets
/// the choice on the welcome screen).
struct TextSizeControl: Sendable {
    struct Option: Sendable {
        var step: Int
        var glyph: String
        var name: String
    }
    var label: String
    var options: [Option]

    static func of(_ language: KioskLanguage) -> TextSizeControl {
        language == .ko
            ? TextSizeControl(label: "글자 크기", options: [Option(step: 0, glyph: "가", name: "보통 글자"), Option(step: 1, glyph: "가+", name: "큰 글자"), Option(step: 2, glyph: "가++", name: "가장 큰 글자")])
            : TextSizeControl(label: "Text size", options: [Option(step: 0, glyph: "A", name: "Normal text"), Option(step: 1, glyph: "A+", name: "Larger text"), Option(step: 2, glyph: "A++", name: "Largest text")])
    }
}

struct Refresh: Sendable {
    var seconds: Int
    var url: String
}

struct WelcomePage: Sendable {
    var page: PageFrame
    var s: KioskStrings
    var surveyTitle: String
    /// The path of the brand's logo.
    var logo: String?
    /// The languages offered, when there are several.
    var offersLanguages: Bool
    var languages: [LanguageChoice]
    var csrf: String
    var chosenLanguage: String
    /// The attract loop, when the operator gave images.
    var attract: AttractLoop? = nil
}

struct LanguageChoice: Sendable {
    var code: String
    var name: String
    var current: Bool
}

struct QuestionPage: Sendable {
    var page: PageFrame
    var s: KioskStrings
    var progressText: String
    var position: Int
    var total: Int
    var csrf: String
    var name: String
    var question: String
    var isOptional: Bool
    /// The message of a rejected answer, shown next to the field.
    var error: String?
    /// `text` and `number` forms.
    var text: TextControl?
    /// `radio`, `checkbox` and `radioWithInput` forms.
    var choices: ChoiceControl?
    /// `radioNumber` forms.
    var scale: ScaleControl?
    var canGoBack: Bool
    var canSkip: Bool
}

struct TextControl: Sendable {
    var entered: String
    var placeholder: String?
    /// `decimal` for numbers, `email` where a rule's pattern asks for an e-mail address, else `text`.
    var inputmode: String
}

struct ChoiceControl: Sendable {
    var isCheckbox: Bool
    var options: [OptionControl]
    /// The free-text field of the `extra` option of a `radioWithInput` form. It follows the
    /// group rather than sitting inside it: a group of radio buttons holds those buttons only.
    var extraField: ExtraField?
}

struct OptionControl: Sendable {
    var optionID: String
    var inputType: String
    var optionValue: String
    var optionLabel: String
    var checked: Bool
    /// Focused when the answer was rejected: the first chosen option, else the first one.
    var takesFocus: Bool
}

struct ExtraField: Sendable {
    var extraText: String
    var extraLabel: String
    /// The id of the option whose choice the field belongs to.
    var extraFor: String
}

struct ScaleControl: Sendable {
    var scores: [ScoreControl]
    var hasLabels: Bool
}

struct ScoreControl: Sendable {
    var score: Int
    var scoreLabel: String?
    var selected: Bool
    /// Focused when the answer was rejected: the chosen score, else the first one.
    var scoreTakesFocus: Bool
}

struct EndPage: Sendable {
    var page: PageFrame
    var s: KioskStrings
    var heading: String
    var message: String
    var seconds: Int
}

struct MessagePage: Sendable {
    var page: PageFrame
    var s: KioskStrings
    var heading: String
    var message: String?
    var detail: String?
    /// A link back to the welcome screen.
    var showStartOver: Bool
}

import Entities
import Mustache

/// Renders the pages from the Mustache templates embedded in the module (`Resources/`).
///
/// Everything that comes from a questionnaire or a respondent goes through `{{ }}`, which
/// escapes it for HTML; the templates use no unescaped tags.
struct KioskRenderer: Sendable {
    /// A page that only says something (and links back to the start).
    enum Message: Sendable, Hashable {
        case expired
        case unavailable
        case badRequest(String)
        case notFound
        case waiting
    }

    let library: MustacheLibrary
    let assets: KioskAssets
    let settings: KioskSettings
    /// The logo and accent colour, which a reload of the configuration may replace.
    let brand: KioskBrandStore
    /// Welcome screens by language, and questions as first shown (see ``PageCache``), each with
    /// the brand's generation it shows.
    let welcomes = PageCache<Branded<WelcomeKey>>()
    let firstViews = PageCache<Branded<FirstView>>()

    struct Branded<Page: Hashable & Sendable>: Hashable, Sendable {
        var page: Page
        var generation: Int
    }

    /// What a welcome screen shows: its language, the survey staff chose, the kiosk's state.
    struct WelcomeKey: Sendable, Hashable {
        var language: KioskLanguage
        var survey: KioskSurveyChoice?
        var state: String?
        var staffHold: Bool
    }

    /// What a question page shows when nothing of the respondent's is in it.
    struct FirstView: Sendable, Hashable {
        var form: Form
        var language: KioskLanguage
        var position: Int
        var total: Int
        var canGoBack: Bool
        /// Reached by Back: the page slides in from the other side.
        var cameBack: Bool
    }

    /// The templates, by name. A template that does not parse is a programming error caught by
    /// the tests; the initializer reports it rather than stopping the daemon.
    static let templates: [(name: String, bytes: [UInt8])] = [
        ("layout", PackageResources.layout_mustache),
        ("welcome", PackageResources.welcome_mustache),
        ("question", PackageResources.question_mustache),
        ("end", PackageResources.end_mustache),
        ("message", PackageResources.message_mustache),
        ("staff", PackageResources.staff_mustache),
        ("consent", PackageResources.consent_mustache),
    ]

    init(settings: KioskSettings, assets: KioskAssets, brand: KioskBrandStore = KioskBrandStore()) throws(KioskTemplateError) {
        var library = MustacheLibrary()
        for template in Self.templates {
            do {
                try library.register(String(decoding: template.bytes, as: UTF8.self), named: template.name)
            } catch {
                throw KioskTemplateError(template: template.name, message: "\(error)")
            }
        }
        self.library = library
        self.assets = assets
        self.settings = settings
        self.brand = brand
    }

    func welcome(language: KioskLanguage, csrf: String, survey: KioskSurveyChoice? = nil, state: String? = nil, staffHold: Bool = false) -> String {
        let brand = brand.current
        let key = WelcomeKey(language: language, survey: survey, state: state, staffHold: staffHold)
        return welcomes.page(Branded(page: key, generation: brand.generation), csrf: csrf) { renderWelcome(key, brand: brand, csrf: $0) }
    }

    private func renderWelcome(_ key: WelcomeKey, brand: KioskBrandStore.Current, csrf: String) -> String {
        let language = key.language
        let strings = KioskStrings.of(language)
        let title = key.survey?.title(for: language) ?? settings.title(for: language)
        // Hourly, for a page without a watch; with one (`data-state`) the held `/state` request
        // brings every change, and the hour is left to browsers without scripts.
        let hourly = Refresh(seconds: 3600, url: "/?lang=\(language.rawValue)")
        var frame = frame(language, title: title, bodyClass: "welcome-page", reload: key.state == nil ? hourly : nil, noscriptRefresh: key.state == nil ? nil : hourly, brand: brand)
        frame.staffHold = key.staffHold ? "/staff" : nil
        frame.state = key.state
        let page = WelcomePage(
            page: frame,
            s: strings,
            surveyTitle: title,
            logo: brand.logo?.path,
            offersLanguages: settings.languages.count > 1,
            languages: settings.languages.map { LanguageChoice(code: $0.rawValue, name: KioskStrings.of($0).languageName, current: $0 == language) },
            csrf: csrf,
            chosenLanguage: language.rawValue,
            attract: brand.attract.isEmpty ? nil : AttractLoop(
                attractSeconds: settings.attractSeconds, attractImages: brand.attract.map(\.path), attractTitle: title,
                attractTouch: AttractLoop.touch(language))
        )
        return render(page, "welcome")
    }

    /// The question page of `view` (which must be asking `question`).
    /// - Parameters:
    ///   - rejected: the rejection to show, with what the respondent had entered.
    ///   - cameBack: reached by Back (the page's transition runs the other way).
    func question(_ question: KioskQuestion, view: RespondentView, csrf: String, rejected: (KioskRejection, PostedAnswer)?, cameBack: Bool = false) -> String {
        guard rejected == nil, question.currentValue == nil else {
            return renderQuestion(question, view: view, csrf: csrf, rejected: rejected, cameBack: cameBack)
        }
        let key = FirstView(form: question.form, language: view.language, position: view.position, total: view.total, canGoBack: view.canGoBack, cameBack: cameBack)
        let brand = brand.current
        return firstViews.page(Branded(page: key, generation: brand.generation), csrf: csrf) { renderQuestion(question, view: view, csrf: $0, rejected: nil, brand: brand, cameBack: cameBack) }
    }

    func renderQuestion(_ question: KioskQuestion, view: RespondentView, csrf: String, rejected: (KioskRejection, PostedAnswer)?, brand: KioskBrandStore.Current? = nil, cameBack: Bool = false) -> String {
        let strings = KioskStrings.of(view.language)
        let form = question.form
        let expiry = settings.sessionExpirySeconds + 1
        var page = QuestionPage(
            page: frame(
                view.language,
                title: "\(strings.progress(view.position, of: view.total)) · \(settings.title(for: view.language))",
                bodyClass: cameBack ? "question-page came-back" : "question-page",
                noscriptRefresh: Refresh(seconds: expiry, url: "/question"),
                brand: brand
            ),
            s: strings,
            progressText: strings.progress(view.position, of: view.total),
            position: view.position,
            total: view.total,
            csrf: csrf,
            name: form.name,
            question: form.question,
            isOptional: !form.isRequired,
            error: rejected.map { Self.message(for: $0.0, form: form, strings: strings) },
            canGoBack: view.canGoBack,
            canSkip: !form.isRequired
        )
        page.page.idleSeconds = settings.idleSeconds
        page.page.countdownSeconds = settings.idleCountdownSeconds
        let entered = rejected.map { EnteredAnswer(posted: $0.1) } ?? EnteredAnswer(current: question.currentValue, form: form)
        page.setControl(for: form, entered: entered, strings: strings)
        return render(page, "question")
    }

    func end(_ outcome: KioskOutcome, language: KioskLanguage) -> String {
        let strings = KioskStrings.of(language)
        let (heading, message): (String, String) =
            switch outcome {
            case .thanks, .abandoned: (strings.thanksTitle, strings.thanksBody)
            case .noTarget: (strings.noTargetTitle, strings.noTargetBody)
            case .queued: (strings.queuedTitle, strings.queuedBody)
            }
        let seconds = settings.endScreenSeconds
        var frame = frame(language, title: heading, bodyClass: "end-page", noscriptRefresh: Refresh(seconds: seconds, url: "/"))
        frame.returnSeconds = seconds
        return render(EndPage(page: frame, s: strings, heading: heading, message: message, seconds: seconds), "end")
    }

    func message(_ message: Message, language: KioskLanguage) -> String {
        let strings = KioskStrings.of(language)
        var reload: Refresh?
        let page: MessagePage
        switch message {
        case .expired:
            page = MessagePage(page: frame(language, title: strings.expiredTitle), s: strings, heading: strings.expiredTitle, message: strings.expiredBody, showStartOver: true)
        case .unavailable:
            reload = Refresh(seconds: 30, url: "/")
            page = MessagePage(page: frame(language, title: strings.unavailableTitle), s: strings, heading: strings.unavailableTitle, message: strings.unavailableBody, showStartOver: true)
        case .badRequest(let detail):
            page = MessagePage(page: frame(language, title: strings.badRequestTitle), s: strings, heading: strings.badRequestTitle, detail: detail, showStartOver: true)
        case .notFound:
            page = MessagePage(page: frame(language, title: strings.notFoundTitle), s: strings, heading: strings.notFoundTitle, message: strings.notFoundBody, showStartOver: true)
        case .waiting:
            reload = Refresh(seconds: 1, url: "/question")
            page = MessagePage(page: frame(language, title: strings.waitingTitle), s: strings, heading: strings.waitingTitle, message: strings.waitingBody, showStartOver: false)
        }
        var withReload = page
        withReload.page.reload = reload
        return render(withReload, "message")
    }

    /// The text shown for a rejection: the rule's own `validateText`, else the pages' text for
    /// the kind of form.
    static func message(for rejection: KioskRejection, form: Form, strings: KioskStrings) -> String {
        switch rejection {
        case .rule(let message): message
        case .missing: strings.missing
        case .unreadable:
            switch form.input {
            case .number: strings.notANumber
            case .choiceWithInput: strings.chooseOrSpecify
            default: strings.checkAnswer
            }
        }
    }

    /// The layout's values; `brand` is the one the page shows (the current one when nil).
    func frame(_ language: KioskLanguage, title: String, bodyClass: String = "message-page", reload: Refresh? = nil, noscriptRefresh: Refresh? = nil, brand: KioskBrandStore.Current? = nil) -> PageFrame {
        let onscreen = settings.keyboard == .onscreen
        return PageFrame(
            lang: language.rawValue, pageTitle: title, css: assets.css.path, js: assets.js.path,
            keyboard: settings.keyboard.rawValue, keyboardCSS: onscreen ? assets.keyboardCSS.path : nil, keyboardJS: onscreen ? assets.keyboardJS.path : nil,
            bodyClass: bodyClass, reload: reload, noscriptRefresh: noscriptRefresh, brandCSS: (brand ?? self.brand.current).styleSheet?.path,
            textSize: .of(language)
        )
    }

    func render(_ object: Any, _ template: String) -> String {
        library.render(object, withTemplate: template) ?? ""
    }
}

/// A page template that does not parse.
public struct KioskTemplateError: Error, Sendable, CustomStringConvertible {
    public static let code = "kiosk_template"
    public var template: String
    public var message: String
    public var description: String { "the kiosk template \"\(template)\" does not parse: \(message)" }
}

import BenchmarkSupport
import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore
import Synchronization

/// The kiosk's walk without the kiosk: the same templates rendered from values of the same shape
/// (the property names are the templates' keys), the same redirects, a cookie per browser and its
/// position in memory. See ``FloorServer``.
final class FloorPages: Sendable {
    let library: MustacheLibrary
    /// Each browser's csrf token and the position of the question it is on (0: none).
    let browsers = Mutex<[String: (csrf: String, position: Int)]>([:])

    /// The questions of the `common` stage as the kiosk shows them.
    static let questions: [(name: String, text: String, placeholder: String?, inputmode: String)] = [
        ("name", "Please enter your name.", "Name", "text"),
        ("email", "Please enter your e-mail address.", "000@gmail.com", "email"),
        ("emailConfirm", "Please enter your e-mail address again.", "000@gmail.com", "email"),
        ("age", "How old are you?", "0", "decimal"),
        ("like", "How much do you like alcoholic drinks?", nil, ""),
    ]

    init(templates: URL) throws {
        var library = MustacheLibrary()
        for name in ["layout", "welcome", "question"] {
            let file = templates.appendingPathComponent("\(name).mustache")
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw BenchmarkError("cannot read the kiosk template \(file.path); run the benchmark from the repository root")
            }
            try library.register(String(decoding: data, as: UTF8.self), named: name)
        }
        self.library = library
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("/") { [self] request, _ in welcome(request) }
        router.post("/start") { [self] request, _ in try await form(request, position: 1, to: "/question") }
        router.get("/question") { [self] request, _ in question(request) }
        router.post("/answer") { [self] request, _ in try await form(request, position: nil, to: "/question") }
        router.post("/reset") { [self] request, _ in try await form(request, position: 0, to: "/") }
    }

    func welcome(_ request: Request) -> Response {
        var cookie = request.cookies["kiosk"]?.value
        var setCookie: String?
        if cookie == nil {
            let token = UUID().uuidString
            browsers.withLock { $0[token] = (csrf: UUID().uuidString, position: 0) }
            cookie = token
            setCookie = "kiosk=\(token); HttpOnly; SameSite=Strict; Path=/"
        }
        let csrf = browsers.withLock { $0[cookie ?? ""]?.csrf } ?? ""
        let page = FloorWelcomePage(
            page: FloorFrame(lang: "en", pageTitle: "Survey", bodyClass: "welcome-page", reload: FloorRefresh(seconds: 3600, url: "/?lang=en")),
            s: .en, surveyTitle: "Survey",
            languages: [FloorLanguage(code: "ko", name: "한국어", current: false), FloorLanguage(code: "en", name: "English", current: true)],
            csrf: csrf, chosenLanguage: "en"
        )
        var response = html(library.render(page, withTemplate: "welcome") ?? "")
        if let setCookie { response.headers[.setCookie] = setCookie }
        return response
    }

    func question(_ request: Request) -> Response {
        let browser = browsers.withLock { $0[request.cookies["kiosk"]?.value ?? ""] }
        guard let browser, browser.position > 0 else { return redirect("/") }
        let position = min(browser.position, Self.questions.count)
        let asked = Self.questions[position - 1]
        let progress = "Question \(position) of \(Self.questions.count)"
        var frame = FloorFrame(lang: "en", pageTitle: "\(progress) · Survey", bodyClass: "question-page", noscriptRefresh: FloorRefresh(seconds: 146, url: "/question"))
        frame.idleSeconds = 120
        frame.countdownSeconds = 20
        var page = FloorQuestionPage(
            page: frame, s: .en, progressText: progress, position: position, total: Self.questions.count, csrf: browser.csrf,
            name: asked.name, question: asked.text, isOptional: false, canGoBack: position > 1, canSkip: false
        )
        if asked.name == "like" {
            page.scale = FloorScale(scores: (1...7).map { FloorScore(score: $0, selected: $0 == 4, scoreTakesFocus: $0 == 4) }, hasLabels: false)
        } else {
            page.text = FloorText(entered: "", placeholder: asked.placeholder, inputmode: asked.inputmode)
        }
        return html(library.render(page, withTemplate: "question") ?? "")
    }

    /// Reads a form body's fields (`position` moves the browser: given, or the posted one + 1), then 303.
    func form(_ request: Request, position: Int?, to location: String) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 16_384)
        let fields = Self.fields(String(buffer: body))
        guard let token = request.cookies["kiosk"]?.value, let csrf = fields.first(where: { $0.0 == "csrf" })?.1 else {
            return Response(status: .forbidden)
        }
        var next = position ?? 0
        if position == nil {
            guard let posted = fields.first(where: { $0.0 == "position" }).flatMap({ Int($0.1) }),
                  fields.contains(where: { $0.0 == "question" }), fields.contains(where: { $0.0 == "value" })
            else { return Response(status: .badRequest) }
            next = posted + 1
        }
        browsers.withLock { $0[token] = (csrf: csrf, position: next) }
        return redirect(location)
    }

    /// `name=value` pairs of a form body, percent-decoded.
    static func fields(_ body: String) -> [(String, String)] {
        body.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    func html(_ text: String) -> Response {
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        Self.secure(&headers)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    func redirect(_ location: String) -> Response {
        var headers: HTTPFields = [.location: location, .cacheControl: "no-store"]
        Self.secure(&headers)
        return Response(status: .seeOther, headers: headers)
    }

    /// The kiosk's security headers, which every one of its responses carries.
    static func secure(_ headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
        headers[.contentSecurityPolicy] = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
        headers[referrerPolicy] = "no-referrer"
        headers[frameOptions] = "DENY"
    }

    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let frameOptions = HTTPField.Name("X-Frame-Options")!
}

// The values the templates read, shaped as the kiosk's (`Modules/Kiosk/Pages/PageModels.swift`).

struct FloorFrame: Sendable {
    var lang: String
    var pageTitle: String
    var css = "/assets/kiosk.0123456789ab.css"
    var js = "/assets/kiosk.0123456789ab.js"
    var bodyClass: String
    var idleSeconds: Int?
    var countdownSeconds: Int?
    var returnSeconds: Int?
    var reload: FloorRefresh?
    var noscriptRefresh: FloorRefresh?

    init(lang: String, pageTitle: String, bodyClass: String, reload: FloorRefresh? = nil, noscriptRefresh: FloorRefresh? = nil) {
        self.lang = lang
        self.pageTitle = pageTitle
        self.bodyClass = bodyClass
        self.reload = reload
        self.noscriptRefresh = noscriptRefresh
    }
}

struct FloorRefresh: Sendable {
    var seconds: Int
    var url: String
}

struct FloorStrings: Sendable {
    var language = "Language"
    var start = "Start"
    var startHint = "Touch Start to begin."
    var next = "Next"
    var back = "Back"
    var skip = "Skip"
    var optional = "Optional"
    var stillThere = "Are you still there?"
    var idleBefore = "The survey will restart in "
    var idleAfter = " seconds."
    var keepGoing = "Continue"

    static let en = FloorStrings()
}

struct FloorWelcomePage: Sendable {
    var page: FloorFrame
    var s: FloorStrings
    var surveyTitle: String
    var languages: [FloorLanguage]
    var csrf: String
    var chosenLanguage: String
}

struct FloorLanguage: Sendable {
    var code: String
    var name: String
    var current: Bool
}

struct FloorQuestionPage: Sendable {
    var page: FloorFrame
    var s: FloorStrings
    var progressText: String
    var position: Int
    var total: Int
    var csrf: String
    var name: String
    var question: String
    var isOptional: Bool
    var error: String?
    var text: FloorText?
    var choices: Bool = false
    var scale: FloorScale?
    var canGoBack: Bool
    var canSkip: Bool

    init(page: FloorFrame, s: FloorStrings, progressText: String, position: Int, total: Int, csrf: String, name: String, question: String, isOptional: Bool, canGoBack: Bool, canSkip: Bool) {
        self.page = page
        self.s = s
        self.progressText = progressText
        self.position = position
        self.total = total
        self.csrf = csrf
        self.name = name
        self.question = question
        self.isOptional = isOptional
        self.canGoBack = canGoBack
        self.canSkip = canSkip
    }
}

struct FloorText: Sendable {
    var entered: String
    var placeholder: String?
    var inputmode: String
}

struct FloorScale: Sendable {
    var scores: [FloorScore]
    var hasLabels: Bool
}

struct FloorScore: Sendable {
    var score: Int
    var scoreLabel: String?
    var selected: Bool
    var scoreTakesFocus: Bool

    init(score: Int, selected: Bool, scoreTakesFocus: Bool) {
        self.score = score
        self.selected = selected
        self.scoreTakesFocus = scoreTakesFocus
    }
}

// The values answer their keys without `Mirror`, as the kiosk's do (`PageModels+Mustache.swift`).

extension FloorFrame: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "lang": self.lang
        case "pageTitle": self.pageTitle
        case "css": self.css
        case "js": self.js
        case "bodyClass": self.bodyClass
        case "idleSeconds": self.idleSeconds
        case "countdownSeconds": self.countdownSeconds
        case "returnSeconds": self.returnSeconds
        case "reload": self.reload
        case "noscriptRefresh": self.noscriptRefresh
        default: nil
        }
    }
}

extension FloorRefresh: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "seconds": self.seconds
        case "url": self.url
        default: nil
        }
    }
}

extension FloorStrings: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "language": self.language
        case "start": self.start
        case "startHint": self.startHint
        case "next": self.next
        case "back": self.back
        case "skip": self.skip
        case "optional": self.optional
        case "stillThere": self.stillThere
        case "idleBefore": self.idleBefore
        case "idleAfter": self.idleAfter
        case "keepGoing": self.keepGoing
        default: nil
        }
    }
}

extension FloorWelcomePage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "page": self.page
        case "s": self.s
        case "surveyTitle": self.surveyTitle
        case "languages": self.languages
        case "csrf": self.csrf
        case "chosenLanguage": self.chosenLanguage
        default: nil
        }
    }
}

extension FloorLanguage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "code": self.code
        case "name": self.name
        case "current": self.current
        default: nil
        }
    }
}

extension FloorQuestionPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "page": self.page
        case "s": self.s
        case "progressText": self.progressText
        case "position": self.position
        case "total": self.total
        case "csrf": self.csrf
        case "name": self.name
        case "question": self.question
        case "isOptional": self.isOptional
        case "error": self.error
        case "text": self.text
        case "choices": self.choices
        case "scale": self.scale
        case "canGoBack": self.canGoBack
        case "canSkip": self.canSkip
        default: nil
        }
    }
}

extension FloorText: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "entered": self.entered
        case "placeholder": self.placeholder
        case "inputmode": self.inputmode
        default: nil
        }
    }
}

extension FloorScale: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "scores": self.scores
        case "hasLabels": self.hasLabels
        default: nil
        }
    }
}

extension FloorScore: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "score": self.score
        case "scoreLabel": self.scoreLabel
        case "selected": self.selected
        case "scoreTakesFocus": self.scoreTakesFocus
        default: nil
        }
    }
}

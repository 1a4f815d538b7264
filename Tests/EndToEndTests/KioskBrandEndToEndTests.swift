#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// The survey and the brand an operator sets, on the built binaries: `firstStage`, the logo, the
/// accent colour, the languages of the welcome screen, and the demo's title.
@Suite(.serialized, .timeLimit(.minutes(10))) struct KioskBrandEndToEndTests {
    let surveyd = PackagePaths.executable("surveyd")
    static let svg = Data(##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><circle r="2" cx="2" cy="2" fill="#1a5c2e"/></svg>"##.utf8)

    /// A browser of the kiosk on `port`: its cookie and the CSRF token of the welcome screen.
    /// A browser of the pages: it keeps the cookies it is given (the kiosk's and the staff's)
    /// and the last CSRF token it was shown. `host` is an address of this machine's; a
    /// non-loopback one makes the browser a client on the network.
    struct Browser {
        var host = "127.0.0.1"
        let port: Int
        /// `name=value` by name.
        var cookies: [String: String] = [:]
        var csrf = ""

        init(host: String = "127.0.0.1", port: Int) {
            self.host = host
            self.port = port
        }

        var cookie: String { cookies.sorted { $0.key < $1.key }.map(\.value).joined(separator: "; ") }

        mutating func open(_ target: String) async throws -> UnixHTTP.Reply {
            let reply = try await LoopbackHTTP.request(host: host, port: port, method: "GET", target: target, headers: cookie.isEmpty ? [:] : ["Cookie": cookie])
            keep(reply)
            if let range = reply.bodyText.range(of: #"name="csrf" value=""#) {
                csrf = String(reply.bodyText[range.upperBound...].prefix { $0 != "\"" })
            }
            return reply
        }

        mutating func post(_ target: String, _ body: String) async throws -> UnixHTTP.Reply {
            let reply = try await LoopbackHTTP.request(
                host: host, port: port, method: "POST", target: target, body: body, contentType: "application/x-www-form-urlencoded", headers: ["Cookie": cookie])
            keep(reply)
            return reply
        }

        private mutating func keep(_ reply: UnixHTTP.Reply) {
            guard let set = reply.headers["set-cookie"], let pair = set.split(separator: ";").first, let name = pair.split(separator: "=").first else { return }
            cookies[String(name)] = set.contains("Max-Age=0") ? nil : String(pair)
        }
    }

    static func port(of daemon: BackgroundProcess) async throws -> Int {
        let line = try await daemon.waitForLine(containing: "surveyd ready", onStandardError: true)
        let field = try #require(line.split(separator: " ").first { $0.hasPrefix("kiosk=") })
        return try #require(Int(field.split(separator: ":").last?.prefix { $0.isNumber } ?? ""))
    }

    @Test func aLogoColourOrLanguageThatCannotBeUsedStopsTheStartWith78() async throws {
        let dir = try TemporaryDirectory(prefix: "brand78")
        defer { dir.remove() }
        let base = ["--state-dir", dir.appending("state").path, "--socket", dir.appending("d.sock").path, "--server-url", "http://127.0.0.1:9", "--kiosk-listen", "127.0.0.1:0"]
        let environment = ["HOME": dir.path, "PATH": "/usr/bin:/bin"]
        func start(_ extra: [String]) async throws -> ProcessResult {
            try await runProcess(surveyd, base + extra, environment: environment, deadline: .seconds(30))
        }
        let missing = dir.appending("missing.svg").path
        let absent = try await start(["--kiosk-logo-file", missing])
        #expect(absent.status == 78)
        #expect(absent.stderr.contains("surveyd: surveyd configuration: kioskLogoFile: the logo \(missing) does not exist"), "\(absent.stderr)")
        let check = try await runProcess(surveyd, base + ["--kiosk-logo-file", missing, "--check-config"], environment: environment, deadline: .seconds(30))
        #expect(check.status == 78 && check.stderr.contains("the logo \(missing) does not exist"), "\(check.stderr)")

        let big = dir.appending("big.svg")
        try (Self.svg + Data(repeating: 0x20, count: 512 * 1024)).write(to: big)
        let tooLarge = try await start(["--kiosk-logo-file", big.path])
        #expect(tooLarge.status == 78)
        #expect(tooLarge.stderr.contains("the logo \(big.path) is 524289 bytes; a logo may have at most 524288 (512 KiB)"), "\(tooLarge.stderr)")

        let gif = dir.appending("logo.png")
        try Data("GIF89a\u{1}\u{0}".utf8).write(to: gif)
        let notAnImage = try await start(["--kiosk-logo-file", gif.path])
        #expect(notAnImage.status == 78)
        #expect(notAnImage.stderr.contains("the logo \(gif.path) is neither a PNG nor an SVG image"), "\(notAnImage.stderr)")

        let pale = try await start(["--kiosk-accent-color", "#ff0000"])
        #expect(pale.status == 78)
        #expect(pale.stderr.contains("flag --kiosk-accent-color: #ff0000 has a contrast of 3.99:1 with white; white text on it and it on white need at least 4.5:1 (WCAG AA)"), "\(pale.stderr)")

        let languages = try await start(["--kiosk-languages", "ko,fr"])
        #expect(languages.status == 78)
        #expect(languages.stderr.contains(#"flag --kiosk-languages: "fr" is not a language the kiosk pages have words for"#), "\(languages.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appending("state").path), "nothing was started")
    }

    /// The logo and colour on the pages; SIGHUP reads the logo again and keeps it when the new
    /// file is refused.
    @Test func theBrandOnThePagesAndASIGHUPThatKeepsTheOldLogo() async throws {
        try await Stack.with { stack in
            try await stack.startMock()
            let logo = stack.dir.appending("logo.svg")
            try Self.svg.write(to: logo)
            let daemon = try await stack.startDaemon(
                socket: stack.socket, state: stack.state,
                ["--kiosk-listen", "127.0.0.1:0", "--kiosk-logo-file", logo.path, "--kiosk-accent-color", "#1a5c2e", "--kiosk-languages", "en", "--kiosk-title-en", "Drinks survey"])
            var browser = Browser(port: try await Self.port(of: daemon))
            let welcome = try await browser.open("/")
            #expect(welcome.status == 200)
            #expect(welcome.bodyText.contains("<html lang=\"en\" ") && !welcome.bodyText.contains("hreflang=\"ko\""), "\(welcome.bodyText)")
            let path = try #require(welcome.bodyText.range(of: "<img class=\"logo\" src=\"").map { String(welcome.bodyText[$0.upperBound...].prefix { $0 != "\"" }) })
            let image = try await LoopbackHTTP.request(port: browser.port, method: "GET", target: path)
            #expect(image.status == 200 && image.body == Self.svg)
            #expect(image.headers["content-type"] == "image/svg+xml")
            #expect(image.headers["content-security-policy"] == "default-src 'none'; style-src 'unsafe-inline'; sandbox")
            let sheet = try #require(welcome.bodyText.range(of: "href=\"/brand/accent.").map { "/brand/accent." + String(welcome.bodyText[$0.upperBound...].prefix { $0 != "\"" }) })
            #expect(try await LoopbackHTTP.request(port: browser.port, method: "GET", target: sheet).bodyText.contains("--accent: #1a5c2e;"))

            try Data("not an image".utf8).write(to: logo)
            kill(daemon.pid, SIGHUP)
            _ = try await daemon.waitForLine(containing: "kiosk logo not reloaded", onStandardError: true)
            #expect(daemon.errorOutput.contains("kiosk logo not reloaded: the logo \(logo.path) is neither a PNG nor an SVG image"), "\(daemon.errorOutput)")
            #expect(try await browser.open("/").bodyText.contains("<img class=\"logo\" src=\"\(path)\""))
            #expect(try await LoopbackHTTP.request(port: browser.port, method: "GET", target: path).status == 200)
            #expect(daemon.isRunning)
        }
    }

    /// A first stage the server does not have: the respondent gets "not available", the operator
    /// a status line and a log line; `surveyctl start` without `--type` leaves the choice to the daemon.
    @Test func aFirstStageTheServerDoesNotHave() async throws {
        try await Stack.with { stack in
            try await stack.startMock()
            let daemon = try await stack.startDaemon(socket: stack.socket, state: stack.state, ["--kiosk-listen", "127.0.0.1:0", "--first-stage", "spring"])
            var browser = Browser(port: try await Self.port(of: daemon))
            _ = try await browser.open("/?lang=en")
            let start = try await browser.post("/start", "csrf=\(browser.csrf)&lang=en")
            #expect(start.status == 503, "\(start.status) \(start.bodyText)")
            #expect(start.bodyText.contains("The survey is not available right now.") && start.bodyText.contains("Please ask a member of staff."), "\(start.bodyText)")
            #expect(!start.bodyText.contains("spring"), "the respondent is not shown operator information")
            // The log line is written on the daemon's log thread and may come after the reply.
            _ = try await daemon.waitForLine(containing: "the survey server has no questionnaire for the first stage spring (en)", onStandardError: true)

            let status = try await stack.ctl(["status"])
            #expect(status.stdout.contains("first stage: MISSING: the survey server has no questionnaire for stage spring (en) since "), "\(status.stdout)")
            let json = try await stack.status()
            #expect((json["firstStageMissing"] as? [String: Any])?["stage"] as? String == "spring", "\(json)")

            let ctlStart = try await stack.ctl(["start", "--lang", "en"])
            #expect(ctlStart.status != 0)
            #expect(ctlStart.stderr.contains("no questionnaire for the first stage spring (en)"), "\(ctlStart.stdout) \(ctlStart.stderr)")
            let named = try await stack.ctl(["start", "--lang", "en", "--type", "common"])
            #expect(named.status == 0 && named.stdout.contains("stage common (en)"), "\(named.stdout) \(named.stderr)")
        }
    }

    @Test func surveyctlStartWithoutTypeStartsAtTheDaemonsFirstStage() async throws {
        try await Stack.with { stack in
            try await stack.startMock()
            try await stack.startDaemon(["--first-stage", "2"])
            let started = try await stack.ctl(["start", "--lang", "en"])
            #expect(started.status == 0 && started.stdout.contains("stage 2 (en)"), "\(started.stdout) \(started.stderr)")
            let posted = try await UnixHTTP.request(socket: stack.socket, method: "POST", target: "/v1/sessions", body: #"{"lang":"ko"}"#)
            #expect(posted.status == 201 || posted.status == 200, "\(posted.bodyText)")
            #expect(posted.bodyText.contains(#""stage":"2""#), "\(posted.bodyText)")
        }
    }

    @Test func theDemoShowsItsSurveysTitle() async throws {
        let dir = try TemporaryDirectory(prefix: "demotitle")
        defer { dir.remove() }
        let demo = try await BackgroundProcess.start(surveyd, ["--demo", "--state-dir", dir.path], currentDirectory: PackagePaths.root, deadline: .seconds(60))
        let line = try await demo.waitForLine(containing: "kiosk pages:")
        let url = try #require(line.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") })
        let port = try #require(Int(url.dropFirst("http://127.0.0.1:".count).prefix { $0.isNumber }))
        let english = try await LoopbackHTTP.request(port: port, method: "GET", target: "/?lang=en")
        #expect(english.bodyText.contains("<h1 class=\"survey-title\">Drinks survey</h1>"), "\(english.bodyText)")
        let korean = try await LoopbackHTTP.request(port: port, method: "GET", target: "/?lang=ko")
        #expect(korean.bodyText.contains("<h1 class=\"survey-title\">음료 설문</h1>"))
        #expect(!korean.bodyText.contains(">Survey<"))
        #expect(await demo.stop() == 0, "\(demo.errorOutput)")
    }
}

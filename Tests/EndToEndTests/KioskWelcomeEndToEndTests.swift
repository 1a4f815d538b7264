import Foundation
import SurveyTesting
import Testing

/// The welcome screen between respondents, of the built surveyd in headless Chromium
/// (`Tests/Browser/welcome_test.py`): out of service through surveyctl and back reach the screen
/// within 2 s, the attract loop after its time untouched (audited with axe-core at 800×480 and
/// 1280×800; a touch brings the welcome screen back without a session; no motion with
/// prefers-reduced-motion), and the closing time of the opening hours reaches the screen within
/// 2 s with no attract loop over the closed screen. And the recommended kiosk set-up itself
/// (`doc/kiosk-browser.sh`, which `doc/kiosk.md`'s unit starts) under cage's headless backend
/// (`Tests/Browser/cage_test.py`), its screen taken with grim.
///
/// Needs `Tests/Browser/install.sh`. `SURVEYD_KIOSK_SCREENSHOTS=doc/kiosk` keeps the screenshots there.
@Suite(.serialized, .timeLimit(.minutes(15))) struct KioskWelcomeEndToEndTests {
    static let script = PackagePaths.root.appending(path: "Tests/Browser/welcome_test.py")
    static let cageScript = PackagePaths.root.appending(path: "Tests/Browser/cage_test.py")
    static let recipe = PackagePaths.root.appending(path: "doc/kiosk-browser.sh")
    static let attractSeconds = 5

    /// Two attract images, as an operator's folder holds them.
    static let images = [
        ("1-sea.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"450\"><rect width=\"800\" height=\"450\" fill=\"#1f6fb2\"/><circle cx=\"400\" cy=\"225\" r=\"120\" fill=\"#ffd23f\"/></svg>"),
        ("2-field.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"450\"><rect width=\"800\" height=\"450\" fill=\"#2e7d32\"/><rect x=\"250\" y=\"120\" width=\"300\" height=\"210\" fill=\"#fff\"/></svg>"),
    ]

    /// Opening hours (UTC) that hold now and end at the first whole minute at least `ahead` from
    /// now, with that moment.
    static func hoursClosing(after ahead: TimeInterval, now: Date = Date()) -> (hours: String, closes: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let closes = calendar.date(bySetting: .second, value: 0, of: now.addingTimeInterval(ahead + 60)) ?? now.addingTimeInterval(ahead + 60)
        let days = ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"]
        let today = days[calendar.component(.weekday, from: now) - 1]
        let parts = calendar.dateComponents([.hour, .minute], from: closes)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        if calendar.isDate(closes, inSameDayAs: now) { return ("\(today) 00:00-\(time)", closes) }
        if time == "00:00" { return ("\(today) 00:00-24:00", closes) }
        let tomorrow = days[calendar.component(.weekday, from: closes) - 1]
        return ("\(today) 00:00-24:00, \(tomorrow) 00:00-\(time)", closes)
    }

    @Test(.requires(browserTools))
    func theWelcomeScreenFollowsTheKioskAndLoopsItsImages() async throws {
        try await Stack.with(deadline: .seconds(540)) { stack in
            try await stack.startMock()
            let folder = stack.dir.appending("attract")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, svg) in Self.images { try Data(svg.utf8).write(to: folder.appendingPathComponent(name)) }
            let (hours, closes) = Self.hoursClosing(after: 100)
            let daemon = try await stack.startDaemon([
                "--kiosk-listen", "127.0.0.1:0", "--kiosk-title-en", "Drinks survey", "--kiosk-title-ko", "음료 설문",
                "--kiosk-attract-folder", folder.path, "--kiosk-attract-seconds", String(Self.attractSeconds),
                "--kiosk-open-hours", hours,
            ], environment: ["TZ": "UTC"])
            let url = try await KioskBrowserEndToEndTests.kioskURL(daemon)
            let out = ProcessInfo.processInfo.environment["SURVEYD_KIOSK_SCREENSHOTS"].map { PackagePaths.root.appending(path: $0).path }
            let result = try await runProcess(
                KioskBrowserEndToEndTests.python,
                [Self.script.path, url, "--out", out ?? stack.dir.appending("welcome").path,
                 "--surveyctl", KioskStaffEndToEndTests.surveyctl.path, "--socket", stack.socket,
                 "--attract", String(Self.attractSeconds), "--closes", String(closes.timeIntervalSince1970)],
                deadline: .seconds(420))
            print(result.stdout)
            if !result.stderr.isEmpty { print(result.stderr) }
            #expect(!result.timedOut)
            #expect(result.status == 0 && result.stdout.contains("5 passed, 0 failed"), "\(result.stdout)\n\(result.stderr)")
        }
    }

    @Test(.requires(cageTools))
    func theRecommendedKioskSetUpDrawsTheWelcomeScreenUnderCage() async throws {
        // Up to 20 starts of 15 s each (cage_test.py says why), and the stops between them.
        try await Stack.with(deadline: .seconds(540)) { stack in
            try await stack.startMock()
            let daemon = try await stack.startDaemon(["--kiosk-listen", "127.0.0.1:0", "--kiosk-title-en", "Drinks survey"])
            let url = try await KioskBrowserEndToEndTests.kioskURL(daemon)
            let result = try await runProcess(
                URL(fileURLWithPath: "/usr/bin/python3"),
                [Self.cageScript.path, url, "--script", Self.recipe.path, "--out", stack.dir.appending("cage").path],
                deadline: .seconds(480))
            print(result.stdout)
            #expect(!result.timedOut)
            #expect(result.status == 0 && result.stdout.contains("1 passed, 0 failed"), "\(result.stdout)\n\(result.stderr)")
        }
    }

    /// The unit in `doc/kiosk.md` starts the script the cage test starts, and the doc shows that
    /// script's command line as it is.
    @Test func theDocStartsTheScriptTheTestTries() throws {
        let doc = try String(contentsOf: PackagePaths.root.appending(path: "doc/kiosk.md"), encoding: .utf8)
        let script = try String(contentsOf: Self.recipe, encoding: .utf8)
        #expect(doc.contains("ExecStart=/usr/local/bin/kiosk-browser http://127.0.0.1:8080/"))
        #expect(doc.contains("install -m 0755 doc/kiosk-browser.sh /usr/local/bin/kiosk-browser"))
        let command = try #require(script.range(of: "exec cage").map { String(script[$0.lowerBound...]) })
        #expect(doc.contains(command.trimmingCharacters(in: .whitespacesAndNewlines)), "doc/kiosk.md does not show the command of doc/kiosk-browser.sh as it is")
        #expect(command.contains("--ozone-platform=wayland"))
    }
}

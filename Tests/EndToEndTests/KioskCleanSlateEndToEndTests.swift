import Foundation
import SurveyTesting
import Testing

/// The kiosk between respondents, in the built surveyd and a real browser:
/// `Tests/Browser/clean_slate_test.py` takes 100 respondents (a fixed seed) through the consent
/// notice and out by every way there is (the thanks screen, screened out, "Are you still there?"
/// on a question or on the notice, consent declined) and checks the DOM, the storage, the text
/// size, the language and the history after each; it first checks that Continue on "Are you still
/// there?" gives the field its focus and keyboard back. Then each kind of leftover is planted on
/// purpose and must be caught, so the checker is known to fail.
///
/// The pages' timers are short, to keep the walk short, but longer than a step of the walk on a
/// starved machine, where one WebDriver command can take a second or more. Beside the whole suite
/// on 2 cores, at 5 s idle a question's page (find the field, type, tap Next) outlasted it and the
/// page went back to the welcome screen under the walk; at a 1 s countdown "Are you still there?"
/// was gone before Continue could be tapped; at a 1 s end screen the page went on while it was
/// read. So: 12 s idle, a 5 s countdown, a 3 s end screen (a tap that comes after it counts as
/// the countdown, the way the respondent left). The consent audit waits for no timer and runs
/// with long ones, so that an axe audit slowed by the suite is not cut short by a page changing.
///
/// Needs `Tests/Browser/install.sh`. The walk of 100 respondents takes 6 to 13 minutes on a 2-core
/// machine on its own and longer beside the rest of the suite, so this suite's limit is 25 minutes.
@Suite(.serialized, .timeLimit(.minutes(25))) struct KioskCleanSlateEndToEndTests {
    static let script = PackagePaths.root.appending(path: "Tests/Browser/clean_slate_test.py")
    /// Seconds without a touch before "Are you still there?", of its countdown, and of the end
    /// screens, on the walks.
    static let (idle, countdown, endScreen) = (12, 5, 3)
    static let timing = ["--idle-seconds", String(idle), "--countdown-seconds", String(countdown), "--end-seconds", String(endScreen)]

    /// The template notice of doc/kiosk.md, long enough to scroll at 800x480.
    static let notice = """
        # 설문 참여 동의 / Before you start

        **목적** 음료 선호 조사를 위해 응답을 수집합니다. (Purpose: a survey of the drinks people like.)

        **수집 항목** 이름, 이메일 주소, 나이, 설문 응답.
        (What is collected: your name, e-mail address, age and answers.)

        **보관 기간** 응답은 설문 서버로 전송되며, 이 기기에는 전송 후 10분 안에 지워집니다.
        설문 서버에서는 조사 종료 후 1년간 보관합니다.
        (How long it is kept: the answers go to the survey server; this kiosk erases them at most 10
        minutes after they are sent. The survey server keeps them for one year
        after the survey ends.)

        **동의를 거부할 권리** 동의하지 않으셔도 되며, 거부해도 불이익이 없습니다. 동의하지 않으면
        아무것도 저장되지 않습니다. (You may refuse: nothing happens to you if you do, and nothing of
        yours is kept.)

        **문의** 개인정보 보호책임자 privacy@example.org (Contact: the data protection officer.)
        """

    /// A daemon with a consent notice in both languages and the walks' timers (or `long` ones).
    func kiosk(_ stack: Stack, long: Bool = false) async throws -> String {
        let (idle, countdown, endScreen) = long ? (600, 60, 600) : (Self.idle, Self.countdown, Self.endScreen)
        let ko = stack.dir.appending("consent.ko.md"), en = stack.dir.appending("consent.en.md")
        try Data(Self.notice.utf8).write(to: ko)
        try Data(Self.notice.replacingOccurrences(of: "# 설문 참여 동의 / Before you start", with: "# Before you start / 설문 참여 동의").utf8).write(to: en)
        try await stack.startMock()
        let daemon = try await stack.startDaemon([
            "--kiosk-listen", "127.0.0.1:0", "--kiosk-title-en", "Drinks survey", "--kiosk-title-ko", "음료 설문",
            "--kiosk-consent-file-ko", ko.path, "--kiosk-consent-file-en", en.path,
            "--kiosk-idle", String(idle), "--kiosk-idle-countdown", String(countdown), "--kiosk-end-screen", String(endScreen),
        ])
        return try await KioskBrowserEndToEndTests.kioskURL(daemon)
    }

    /// The consent notice and "No, thanks" at 800x480 and 1280x800: no axe violation of any
    /// impact, the buttons on screen. `SURVEYD_KIOSK_SCREENSHOTS=doc/kiosk` keeps the screenshots.
    @Test(.requires(browserTools))
    func theConsentScreensPassTheAudit() async throws {
        try await Stack.with(deadline: .seconds(240)) { stack in
            let url = try await kiosk(stack, long: true)
            let out = ProcessInfo.processInfo.environment["SURVEYD_KIOSK_SCREENSHOTS"].map { PackagePaths.root.appending(path: $0).path }
            let result = try await runProcess(
                KioskBrowserEndToEndTests.python, [Self.script.path, url, "--screens", out ?? stack.dir.appending("screens").path], deadline: .seconds(200))
            print(result.stdout)
            if !result.stderr.isEmpty { print(result.stderr) }
            #expect(!result.timedOut)
            #expect(result.status == 0 && result.stdout.contains("8 screens, 0 failed"), "\(result.stdout)\n\(result.stderr)")
        }
    }

    @Test(.requires(browserTools))
    func nothingOfARespondentIsLeftForTheNext() async throws {
        try await Stack.with(deadline: .seconds(1300)) { stack in
            let url = try await kiosk(stack)
            let result = try await runProcess(KioskBrowserEndToEndTests.python, [Self.script.path, url, "--respondents", "100", "--seed", "7"] + Self.timing, deadline: .seconds(1260))
            print(result.stdout)
            if !result.stderr.isEmpty { print(result.stderr) }
            #expect(!result.timedOut)
            #expect(result.status == 0 && result.stdout.contains("100 respondents") && result.stdout.contains(" 0 leftovers"), "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("Continue gave the field back"), "\(result.stdout)")
            // Every way out was taken.
            for way in ["thanks-tap", "thanks-countdown", "screened", "idle-question", "idle-consent", "declined"] {
                #expect(result.stdout.contains(way + " "), "\(way) never taken: \(result.stdout)")
            }
        }
    }

    @Test(.requires(browserTools),
          arguments: ["storage", "value", "text", "size"])
    func aPlantedLeftoverIsCaught(kind: String) async throws {
        try await Stack.with(deadline: .seconds(240)) { stack in
            let url = try await kiosk(stack)
            let result = try await runProcess(
                KioskBrowserEndToEndTests.python, [Self.script.path, url, "--respondents", "4", "--seed", "3", "--plant", kind] + Self.timing, deadline: .seconds(200))
            print(result.stdout)
            #expect(!result.timedOut)
            #expect(result.status == 0 && result.stdout.contains("planted leftover caught"), "\(result.stdout)\n\(result.stderr)")
        }
    }
}

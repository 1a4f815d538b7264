import Foundation
import SurveyTesting
import Testing

/// The staff screen of the built surveyd in headless Chromium, tapped as a person would
/// (`Tests/Browser/staff_test.py`): the way in, a wrong PIN, the lockout and its unlock, the right
/// PIN, Send now, out of service seen by a second browser, a switched survey seen by the next
/// respondent, Done and the automatic exit, and the respondent's text sizes, at 800×480 and
/// 1280×800, each staff screen audited with axe-core.
///
/// Needs `Tests/Browser/install.sh`. `SURVEYD_KIOSK_SCREENSHOTS=doc/kiosk` keeps the screenshots there.
@Suite(.serialized, .timeLimit(.minutes(10))) struct KioskStaffBrowserEndToEndTests {
    static let script = PackagePaths.root.appending(path: "Tests/Browser/staff_test.py")

    @Test(.requires(browserTools))
    func staffScreenTappedAsAPersonWould() async throws {
        try await Stack.with(deadline: .seconds(600), check)
    }

    func check(_ stack: Stack) async throws {
        try await stack.startMock()
        let pin = stack.dir.appending("staff-pin").path
        let set = try await KioskStaffEndToEndTests.setPin(pin, stdin: "2468\n2468\n")
        #expect(set.status == 0, "\(set.stderr)")
        let daemon = try await stack.startDaemon([
            "--kiosk-listen", "127.0.0.1:0", "--kiosk-title-en", "Drinks survey", "--kiosk-title-ko", "음료 설문",
            "--kiosk-staff-pin-file", pin, "--kiosk-surveys", "common=ko:음료 설문|en:Drinks survey,2=ko:두 번째 설문|en:Second survey",
        ])
        let url = try await KioskBrowserEndToEndTests.kioskURL(daemon)
        let out = ProcessInfo.processInfo.environment["SURVEYD_KIOSK_SCREENSHOTS"].map { PackagePaths.root.appending(path: $0).path }
        let result = try await runProcess(
            KioskBrowserEndToEndTests.python,
            [Self.script.path, url, "--out", out ?? stack.dir.appending("staff").path,
             "--surveyctl", KioskStaffEndToEndTests.surveyctl.path, "--socket", stack.socket],
            deadline: .seconds(540))
        print(result.stdout)
        if !result.stderr.isEmpty { print(result.stderr) }
        #expect(!result.timedOut)
        #expect(result.status == 0 && result.stdout.contains("2 passed, 0 failed"), "\(result.stdout)\n\(result.stderr)")
    }
}

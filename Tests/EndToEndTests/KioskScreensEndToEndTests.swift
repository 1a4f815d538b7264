import Foundation
import SurveyTesting
import Testing

/// The kiosk pages of the built surveyd at the screen sizes kiosks have (800×480, 1280×800,
/// 1920×1080, 1080×1920), in headless Chromium driven by `Tests/Browser/screens_test.py`: the
/// welcome screen, a text question with the on-screen keyboard open in Korean, a choice question;
/// no horizontal scrolling, text at least 18 px, the question, its field and Next reachable by
/// scrolling the page, and an axe-core audit of each. The pages carry a brand (a logo and an
/// accent colour), as an operator sets them.
///
/// Needs `Tests/Browser/install.sh`. `SURVEYD_KIOSK_SCREENSHOTS=doc/kiosk` keeps the screenshots there.
@Suite(.serialized, .timeLimit(.minutes(10))) struct KioskScreensEndToEndTests {
    static let script = PackagePaths.root.appending(path: "Tests/Browser/screens_test.py")
    static let logo = Data("""
        <svg xmlns="http://www.w3.org/2000/svg" width="270" height="64" viewBox="0 0 270 64">\
        <rect x="4" y="4" width="56" height="56" rx="12" fill="#1a5c2e"/>\
        <path d="M18 40 L32 18 L46 40 Z" fill="#fff"/>\
        <text x="72" y="42" font-family="sans-serif" font-size="26" font-weight="700" fill="#1a5c2e">Example Co.</text></svg>
        """.utf8)

    @Test(.requires(browserTools))
    func everyScreenSize() async throws {
        try await Stack.with(deadline: .seconds(600), check)
    }

    func check(_ stack: Stack) async throws {
        try await stack.startMock()
        let logo = stack.dir.appending("logo.svg")
        try Self.logo.write(to: logo)
        let daemon = try await stack.startDaemon([
            "--kiosk-listen", "127.0.0.1:0", "--kiosk-title-en", "Drinks survey", "--kiosk-title-ko", "음료 설문",
            "--kiosk-logo-file", logo.path, "--kiosk-accent-color", "#1a5c2e",
        ])
        let url = try await KioskBrowserEndToEndTests.kioskURL(daemon)
        let out = ProcessInfo.processInfo.environment["SURVEYD_KIOSK_SCREENSHOTS"].map { PackagePaths.root.appending(path: $0).path }
        let result = try await runProcess(
            KioskBrowserEndToEndTests.python, [Self.script.path, url, "--out", out ?? stack.dir.appending("screens").path],
            deadline: .seconds(420))
        report(result.stdout)
        if !result.stderr.isEmpty { print(result.stderr) }
        #expect(!result.timedOut)
        #expect(result.status == 0 && result.stdout.contains("4 passed, 0 failed"), "\(result.stdout)\n\(result.stderr)")
    }
}

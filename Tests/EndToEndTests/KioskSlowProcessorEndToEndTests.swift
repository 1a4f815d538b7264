import Foundation
import SurveyTesting
import Testing

/// The kiosk pages of the built surveyd on a slow processor: `Tests/Browser/slow_cpu_test.py`
/// throttles headless Chromium's CPU 6× (about a Raspberry Pi 4) at 800×480 and measures the
/// welcome screen, a text question with the on-screen keyboard open and a choice question (time
/// to `load` and to the keyboard's first paint, 500 ms limit), 100 key taps (tap to the frame
/// showing it, 50 ms limit at the 95th percentile), a tap on Next to the next page's first paint,
/// and the bytes each page uses (100 KB limit).
/// The timings are printed beside their limits, not asserted; the bytes are.
///
/// Needs `Tests/Browser/install.sh`.
@Suite(.serialized, .timeLimit(.minutes(10))) struct KioskSlowProcessorEndToEndTests {
    static let script = PackagePaths.root.appending(path: "Tests/Browser/slow_cpu_test.py")

    @Test(.requires(browserTools))
    func pagesOnAThrottledProcessor() async throws {
        try await Stack.with(deadline: .seconds(540), check)
    }

    func check(_ stack: Stack) async throws {
        try await stack.startMock()
        let daemon = try await stack.startDaemon([
            "--kiosk-listen", "127.0.0.1:0", "--kiosk-title-en", "Drinks survey", "--kiosk-title-ko", "음료 설문",
        ])
        let url = try await KioskBrowserEndToEndTests.kioskURL(daemon)
        let result = try await runProcess(KioskBrowserEndToEndTests.python, [Self.script.path, url], deadline: .seconds(360))
        print(result.stdout)
        if !result.stderr.isEmpty { print(result.stderr) }
        #expect(!result.timedOut)
        #expect(result.status == 0 && result.stdout.contains("1 passed, 0 failed"), "\(result.stdout)\n\(result.stderr)")
        // Every page was measured (the welcome screen twice, the two questions) and the taps, each beside its limit.
        #expect(result.stdout.components(separatedBy: "\n").filter { $0.contains(" 500 ") }.count == 4, "\(result.stdout)")
        #expect(result.stdout.contains("100 taps"), "\(result.stdout)")
        #expect(result.stdout.contains("Next tap to the next page's first paint: 5 taps"), "\(result.stdout)")
    }
}

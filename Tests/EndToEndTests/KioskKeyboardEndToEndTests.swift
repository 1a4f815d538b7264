#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// The kiosk's on-screen keyboard in a real browser: `Tests/Browser/keyboard_test.py` drives
/// headless Chromium on a question page of the built surveyd and types its table of key sequences
/// by clicking the keys (the Hangul composer, Shift and caps lock, 한/영), then checks the
/// keyboard's sizes and names, the field and Next above it (also at 800×480), Enter = Next, the
/// e-mail layout and the number pad; a second daemon with `--kiosk-keyboard system` shows none.
///
/// `SURVEYD_KIOSK_SCREENSHOTS=doc/kiosk` keeps the screenshots of the layouts there.
@Suite(.serialized, .timeLimit(.minutes(10))) struct KioskKeyboardEndToEndTests {
    static let script = PackagePaths.root.appending(path: "Tests/Browser/keyboard_test.py")

    @Test(.requires(browserTools))
    func keysTappedInTheBrowserComposeTheText() async throws {
        try await Stack.with(deadline: .seconds(600)) { try await tapTheKeys($0) }
    }

    func tapTheKeys(_ stack: Stack) async throws {
        try await stack.startMock()
        let daemon = try await stack.startDaemon(["--kiosk-listen", "127.0.0.1:0"])
        let url = try await KioskBrowserEndToEndTests.kioskURL(daemon)
        let system = try await stack.startDaemon(
            socket: stack.dir.path + "/system.sock", state: stack.dir.path + "/system-state",
            ["--kiosk-listen", "127.0.0.1:0", "--kiosk-keyboard", "system"])
        let systemURL = try await KioskBrowserEndToEndTests.kioskURL(system)

        let out = ProcessInfo.processInfo.environment["SURVEYD_KIOSK_SCREENSHOTS"].map { PackagePaths.root.appending(path: $0).path }
        var arguments = [Self.script.path, url, "--system-url", systemURL]
        if let out { arguments += ["--out", out] }
        let result = try await runProcess(KioskBrowserEndToEndTests.python, arguments, deadline: .seconds(480))
        report(result.stdout)
        if !result.stderr.isEmpty { print(result.stderr) }
        #expect(!result.timedOut)
        #expect(result.status == 0 && result.stdout.contains(" passed, 0 failed"), "\(result.stdout)\n\(result.stderr)")
        // The whole table ran, each sequence giving its text.
        let summary = result.stdout.split(separator: "\n").first { $0.hasPrefix("composer: ") }
        let counts = summary?.split(separator: " ").compactMap { Int($0) } ?? []
        #expect(counts.count >= 2 && counts[0] == counts[1] && counts[1] >= 60, "\(summary ?? "no composer summary")")
    }
}

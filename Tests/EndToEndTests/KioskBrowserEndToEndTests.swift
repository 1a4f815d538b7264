#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// The kiosk pages of the built surveyd in a real browser: headless Chromium, driven by
/// `Tests/Browser/kiosk_test.py` through chromium-driver, walks the mock survey in both languages
/// (every form type, a validation message, Back, each end screen, scripts off, the idle reset)
/// with an axe-core audit of every screen, typing its answers on the on-screen keys; the server's
/// record holds exactly what was tapped; then, with the survey server stopped, a respondent
/// finishes, sees "saved", and the submission is delivered once after the server returns.
///
/// `Tests/Browser/install.sh` (run by `.ci/run`) installs the browser; without it this test is
/// skipped (its trait says so in the test report), except under `CI=true`, where it fails. `SURVEYD_KIOSK_SCREENSHOTS=doc/kiosk` keeps the screenshots there.
@Suite(.serialized, .timeLimit(.minutes(10))) struct KioskBrowserEndToEndTests {
    static let python = PackagePaths.root.appending(path: ".build-browser/venv/bin/python")
    static let script = PackagePaths.root.appending(path: "Tests/Browser/kiosk_test.py")

    /// The kiosk URL in the daemon's "surveyd ready" line.
    static func kioskURL(_ daemon: BackgroundProcess) async throws -> String {
        let line = try await daemon.waitForLine(containing: "surveyd ready", onStandardError: true)
        let field = try #require(line.split(separator: " ").first { $0.hasPrefix("kiosk=") })
        return String(field.dropFirst("kiosk=".count))
    }

    func walk(_ arguments: [String], deadline: Duration) async throws -> ProcessResult {
        let out = ProcessInfo.processInfo.environment["SURVEYD_KIOSK_SCREENSHOTS"].map { PackagePaths.root.appending(path: $0).path }
        let result = try await runProcess(
            Self.python, [Self.script.path] + arguments + ["--out", out ?? (FileManager.default.temporaryDirectory.path + "/kiosk-browser-\(getpid())")],
            deadline: deadline)
        report(result.stdout)
        if !result.stderr.isEmpty { print(result.stderr) }
        return result
    }

    // Skipped, not passed, where Chromium, chromedriver or the Selenium environment is absent;
    // failed there under CI=true.
    @Test(.requires(browserTools))
    func aRespondentInARealBrowser() async throws {
        try await Stack.with(deadline: .seconds(900)) { try await walkOnlineThenOffline($0) }
    }

    func walkOnlineThenOffline(_ stack: Stack) async throws {
        try await stack.startMock()
        let kioskFlags = ["--kiosk-listen", "127.0.0.1:0", "--kiosk-title-en", "Drinks survey", "--kiosk-title-ko", "음료 설문"]
        let daemon = try await stack.startDaemon(kioskFlags)
        let url = try await Self.kioskURL(daemon)
        // A second daemon whose pages reset after a few seconds without a touch.
        let idleDaemon = try await stack.startDaemon(
            socket: stack.dir.path + "/idle.sock", state: stack.dir.path + "/idle-state",
            kioskFlags + ["--kiosk-idle", "5", "--kiosk-idle-countdown", "5"])
        let idleURL = try await Self.kioskURL(idleDaemon)

        let online = try await walk(
            [url, "--idle-url", idleURL, "--idle-seconds", "5", "--countdown-seconds", "5", "--walks", "english,korean,screened,noscript,idle"],
            deadline: .seconds(420))
        #expect(online.status == 0 && online.stdout.contains("5 passed, 0 failed"), "\(online.stdout)\n\(online.stderr)")
        #expect(!online.timedOut)
        let delivered = try stack.records()
        // English: common and stage 1; Korean: common and stage 2; scripts off: common, stage 1 left open.
        #expect(delivered.count >= 5, "\(delivered)")
        // What was tapped on the on-screen keys reached the server exactly.
        let answers = delivered.compactMap { $0["answers"] as? [String: Any] }
        let korean = answers.first { $0["name"] as? String == "김민지" }
        #expect(korean?["email"] as? String == "minji@example.com" && (korean?["age"] as? NSNumber)?.intValue == 30, "\(answers)")
        let english = answers.first { $0["name"] as? String == "Kim Minji" }
        #expect(english?["email"] as? String == "minji@example.com" && (english?["age"] as? NSNumber)?.intValue == 30, "\(answers)")
        let stage1 = answers.first { $0["pairing"] != nil }
        #expect(stage1?["pairing"] as? String == "Wine and cheese" && stage1?["coupon"] as? String == "ABC-12", "\(answers)")
        #expect((stage1?["glassesPerWeek"] as? NSNumber)?.intValue == 4 && stage1?["type"] as? String == "Cider", "\(answers)")

        // The survey server goes away: the respondent still finishes and is told the answers are saved.
        await stack.stopMock()
        let offline = try await walk([url, "--offline-url", url, "--walks", "offline"], deadline: .seconds(180))
        #expect(offline.status == 0 && offline.stdout.contains("1 passed, 0 failed"), "\(offline.stdout)\n\(offline.stderr)")
        let status = try await stack.statusOnceOfflineAndIdle()
        #expect((status["queue"] as? [String: Any])?["pending"] as? Int == 1, "\(status)")
        try await stack.startMock()
        let flushed = try await stack.ctl(["flush", "--wait", "--timeout", "30"])
        #expect(flushed.status == 0, "\(flushed.stdout) \(flushed.stderr)")
        let saved = try stack.records().filter { ($0["answers"] as? [String: Any])?["name"] as? String == "Park Hana" }
        #expect(saved.count == 1, "\(saved)")
        #expect(saved.first?["typeID"] as? String == "common")
    }
}

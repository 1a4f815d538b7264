import Foundation
import SurveyTesting
import Testing

/// Respondents answer through the control API and the kiosk pages; some deliver, some are
/// abandoned (an idle timeout, a kiosk reset), some stay open. After delivery and `surveyctl
/// purge`, no file of the state directory holds a word of a delivered or abandoned respondent, in
/// any encoding; the open respondents' answers survive a restart and are delivered. The daemon
/// logs at debug level throughout, and no answer reaches its log.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ErasureEndToEndTests {
    static let kioskFlags = ["--kiosk-listen", "127.0.0.1:0", "--log-level", "debug"]

    /// Each respondent's name and e-mail address: words no file should hold once they are erased.
    static func words(_ name: String) -> [String] { [name, name.lowercased() + ".mail@example.com"] }

    @Test func deliveredAndAbandonedAnswersLeaveTheDisk() async throws {
        let stack = try Stack()
        try await stack.startMock()
        var logs = ""

        // 1. A respondent walks away from the control API; the idle timeout (30 s: long enough
        // between two answers, each a surveyctl process, on a loaded machine) abandons the session.
        var daemon = try await stack.startDaemon(Self.kioskFlags + ["--idle-timeout", "30"])
        _ = try await stack.ctl(["start", "--lang", "en"])
        try await stack.answer(Self.words("Pelicanidle").map { [$0] } + [[Self.words("Pelicanidle")[1]]])
        #expect(try await stack.waitFor("the idle timeout to close the session", timeout: .seconds(90), every: .milliseconds(200)) {
            (try await stack.status()["sessions"] as? [[String: Any]])?.isEmpty == true
        }, "the idle timeout closed the session")
        #expect(await daemon.stop() == 0)
        logs += daemon.errorOutput

        // 2. With the usual idle timeout: respondents through both front ends.
        daemon = try await stack.startDaemon(Self.kioskFlags)
        let url = try await KioskBrowserEndToEndTests.kioskURL(daemon)
        // Delivered through the control API: common, then stage 1, then thanks.
        _ = try await stack.ctl(["start", "--lang", "en"])
        let quail = Self.words("Quailharbor")
        let finished = try await stack.json(["answer"] + [quail[0]])
        #expect(finished["accepted"] as? Bool == true)
        try await stack.answer([[quail[1]], [quail[1]], ["30"], ["5"]] + Stack.stage1.dropLast())
        #expect(stack.outcome(try await stack.json(["answer"] + Stack.stage1.last!)) == "thanks")
        // Delivered through the kiosk pages: common with a low liking, then stage 2.
        let raven = Self.words("Ravenorchid")
        let delivered = try KioskVisitor(url: url)
        try await delivered.start()
        for value in [raven[0], raven[1], raven[1], "30", "2"] { try await delivered.answer(value) }
        for _ in 0..<10 {
            guard let question = delivered.hidden("question") else { break }
            let value = ["tried": "yes", "reason": "taste", "recommend": "6", "consent": "agree"][question] ?? "yes"
            try await delivered.answer(value)
        }
        #expect(delivered.hidden("question") == nil, "the kiosk respondent reached the end: \(delivered.page.prefix(400))")
        // Abandoned on the kiosk: the respondent left and the page was reset.
        let swift = Self.words("Swiftletmoor")
        let leaving = try KioskVisitor(url: url)
        try await leaving.start()
        for value in [swift[0], swift[1]] { try await leaving.answer(value) }
        try await leaving.reset()
        // Open: one through the control API, one on the kiosk.
        let tern = Self.words("Ternwhistle")
        let openOnControl = try await stack.json(["start", "--lang", "en"])
        let openID = try #require((openOnControl["id"] as? String) ?? ((openOnControl["session"] as? [String: Any])?["id"] as? String), "\(openOnControl)")
        try await stack.answer([[tern[0]], [tern[1]]])
        let urchin = Self.words("Urchinvale")
        let openOnKiosk = try KioskVisitor(url: url)
        try await openOnKiosk.start()
        // The last one is refused (not a number): the page quotes it back, the log must not.
        for value in [urchin[0], urchin[1], urchin[1], urchin[0]] { try await openOnKiosk.answer(value) }
        #expect(openOnKiosk.hidden("question") == "age" && openOnKiosk.page.contains("id=\"answer-error\""), "\(openOnKiosk.page.prefix(600))")
        // Each stage's last answer waited for its delivery (`--delivery-wait 2`), so the uploads
        // are normally in before this wait starts: 0.1 to 0.2 s beside two CPU hogs and three
        // builds on two cores (load average 14 to 20). Beside the whole suite this wait (at 15 s,
        // then at 60 s) ran out, here and in CI, and the status recorded then said "connectivity:
        // offline", since about 120 s after the mock server started: the stack's processes had
        // a 120 s deadline, this walk takes longer beside the whole suite, and once the deadline
        // kill was made to work the mock server was killed under it. The stack's deadline now
        // outlasts the walk, and 15 s is the wait again: a stuck daemon is caught quickly.
        #expect(try await stack.waitFor("four uploads at the server", timeout: .seconds(15), every: .milliseconds(200)) {
            let pending = try await stack.queue()["pending"] as? Int
            let delivered = try stack.records().count
            return pending == 0 && delivered == 4
        }, "the uploads reached the server")

        // Status and the metric show what waits for erasure.
        let waiting = try #require(try await stack.status()["erasure"] as? [String: Any])
        #expect((waiting["sessions"] as? Int ?? 0) >= 3, "\(waiting)")
        #expect((waiting["oldestWaitingSeconds"] as? Double) != nil, "\(waiting)")
        let metrics = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/metrics")
        #expect(metrics.bodyText.contains("surveyd_erasure_oldest_waiting_age_seconds"))
        let line = try await stack.ctl(["status"])
        #expect(line.stdout.contains("erasure: "), "\(line.stdout)")

        let purge = try await stack.ctl(["purge"])
        #expect(purge.status == 0 && purge.stdout.contains("closed session(s) erased"), "\(purge.stdout) \(purge.stderr)")
        let erased = Self.words("Pelicanidle") + quail + raven + swift
        let found = DiskSearch.find(erased, under: stack.state)
        #expect(found.isEmpty, "\(found)")
        let after = try #require(try await stack.status()["erasure"] as? [String: Any])
        #expect(after["oldestWaitingSeconds"] == nil && after["sessions"] as? Int == 0, "\(after)")
        #expect(await daemon.stop() == 0)
        logs += daemon.errorOutput

        // 3. After a restart the open respondents go on, every answer recovered, and deliver.
        daemon = try await stack.startDaemon(["--log-level", "debug"])
        let open = try #require(try await stack.status()["sessions"] as? [[String: Any]])
        #expect(open.count == 2 && open.allSatisfy { $0["current"] as? Int == ($0["id"] as? String == openID ? 3 : 4) }, "\(open)")
        let kioskID = try #require(open.compactMap { $0["id"] as? String }.first { $0 != openID })
        try await stack.answer([["--session", openID, tern[1]], ["--session", openID, "30"], ["--session", openID, "2"]])
        try await stack.answer([["--session", kioskID, "30"], ["--session", kioskID, "2"]])
        // 15 s, as above.
        #expect(try await stack.waitFor("six uploads at the server after the restart", timeout: .seconds(15), every: .milliseconds(200)) { (try stack.records().count) == 6 }, "the uploads reached the server")
        let names = Set(try stack.records().compactMap { ($0["answers"] as? [String: Any])?["name"] as? String })
        #expect(names.isSuperset(of: [tern[0], urchin[0]]), "\(names)")
        #expect(await daemon.stop() == 0)
        logs += daemon.errorOutput

        #expect(logs.contains("debug"), "the daemon logged at debug level")
        for word in erased + tern + urchin {
            #expect(!logs.contains(word), "\(word) is in the daemon's log")
        }
        await stack.finish()
    }
}

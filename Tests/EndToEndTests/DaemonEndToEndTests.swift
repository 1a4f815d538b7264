#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// surveyd, surveyctl and the mock server as built binaries, together (``Stack``): a whole survey,
/// queueing through outages, restarts and the operator's commands.
@Suite(.serialized, .timeLimit(.minutes(10))) struct DaemonEndToEndTests {
    /// 1. common → stage 1 → thanks; the record holds each stage once with the right JSON types.
    @Test func theWholeSurvey() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon()
        let started = try await stack.ctl(["start", "--lang", "en"])
        #expect(started.status == 0)
        #expect(started.stdout.contains("question 1 of 5"))
        try await stack.answer(Stack.common + Stack.stage1.dropLast())
        let last = try await stack.json(["answer"] + Stack.stage1.last!)
        #expect(stack.outcome(last) == "thanks", "\(last)")
        let records = try stack.records()
        #expect(records.map { $0["typeID"] as? String } == ["common", "1"])
        let common = try #require(records.first?["answers"] as? [String: Any])
        #expect(common["name"] as? String == "Kim Minsu")
        #expect((common["age"] as? NSNumber)?.intValue == 30 && !(common["age"] is String))
        #expect((common["like"] as? NSNumber)?.intValue == 5)
        let stage1 = try #require(records.last?["answers"] as? [String: Any])
        #expect(stage1["occasions"] as? [String] == ["home", "bar"])
        #expect(stage1["type"] as? String == "beer")
        #expect((stage1["glassesPerWeek"] as? NSNumber)?.intValue == 7)
        #expect(stage1["pairing"] == nil)
        #expect(Set(records.compactMap { $0["idempotencyKey"] as? String }).count == 2)
        // The device id made in the state directory goes with every upload and shows in status;
        // the two uploads carry their queue order.
        let deviceId = try String(contentsOfFile: stack.state + "/device-id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(records.map { $0["deviceId"] as? String } == [deviceId, deviceId])
        let sequences = records.compactMap { ($0["sequence"] as? String).flatMap(Int.init) }
        #expect(sequences.count == 2 && sequences[0] < sequences[1], "\(records)")
        #expect(try await stack.status()["deviceId"] as? String == deviceId)
        // Answer contents never reach the log at info level.
        #expect(!(stack.daemon?.errorOutput.contains("kim@example.com") ?? true))
        // The metrics count the survey; the daemon is healthy.
        let metrics = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/metrics")
        #expect(metrics.status == 200)
        let lines = Set(metrics.bodyText.split(separator: "\n").map(String.init))
        for line in [#"surveyd_sessions_closed_total{outcome="thanks"} 1"#, "surveyd_sessions_started_total 1", "surveyd_submissions_delivered_total 2", "surveyd_submissions_pending 0.0", "surveyd_ready 1.0"] {
            #expect(lines.contains(line), "\(line) is not in \(metrics.bodyText)")
        }
        let health = try await stack.ctl(["health"])
        #expect(health.status == 0 && health.stdout == "ready\n", "\(health.stdout) \(health.stderr)")
        await stack.finish()
    }

    /// 2. A rejected answer shows the rule's text; screening ends in no_target and nothing is uploaded.
    @Test func rejectionAndScreening() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon()
        _ = try await stack.ctl(["start", "--lang", "en"])
        let rejected = try await stack.ctl(["answer", "K"])
        #expect(rejected.status == 65)
        #expect(rejected.stdout.contains("Your name must be 2 to 20 characters long.") || rejected.stderr.contains("Your name must be 2 to 20 characters long."))
        #expect(rejected.stdout.contains("question 1 of 5"))
        try await stack.answer([["Kim Minsu"], ["kim@example.com"], ["kim@example.com"]])
        let screened = try await stack.json(["answer", "17"])
        #expect(stack.outcome(screened) == "no_target", "\(screened)")
        // Nothing was queued (the reply came after the session's close was journaled), so nothing
        // can be sent: the queue is the daemon's own word for it, then the server's record.
        let queue = try await stack.queue()
        #expect(queue["pending"] as? Int == 0 && queue["delivered"] as? Int == 0 && queue["inFlight"] as? Int == 0, "\(queue)")
        #expect(try stack.records().isEmpty)
        await stack.finish()
    }

    /// 3. Outage: the survey ends as queued, nothing is sent while offline, flush delivers it once.
    @Test func outageThenFlush() async throws {
        let stack = try Stack()
        try await stack.startMock()
        // At debug level the survey client logs every HTTP request it is about to send.
        try await stack.startDaemon(["--log-level", "debug"])
        try await stack.startAndAnswerAllButLast()
        await stack.stopMock()
        let last = try await stack.json(["answer"] + Stack.common.last!)
        #expect(stack.outcome(last) == "queued", "\(last)")
        // The stage's first upload may go out on the last online verdict (reused for
        // connectivityCacheSeconds, 1 s): the connection is refused (the HTTP client may retry
        // the connect for up to its 5 s connect timeout) and the daemon checks again: offline.
        let status = try await stack.statusOnceOfflineAndIdle()
        let queue = try #require(status["queue"] as? [String: Any])
        #expect(queue["pending"] as? Int == 1 && queue["inFlight"] as? Int == 0, "\(queue)")
        #expect((status["connectivity"] as? [String: Any])?["state"] as? String == "offline")
        let beforeOffline = stack.uploadRequestsLogged()
        #expect(beforeOffline <= 1, "\(stack.daemon?.errorOutput ?? "")")
        let offlineFlush = try await stack.ctl(["flush", "--wait", "--timeout", "2"])
        #expect(offlineFlush.status == 75, "\(offlineFlush.stdout) \(offlineFlush.stderr)")
        // Once offline, the flush and the worker's own retries try the upload and send nothing.
        // (surveyd is another process: a bounded wait, not its clock, gives a request a chance to show.)
        try await Task.sleep(for: .milliseconds(300))
        #expect(stack.uploadRequestsLogged() == beforeOffline, "\(stack.daemon?.errorOutput ?? "")")
        try await stack.startMock()
        let flushed = try await stack.ctl(["flush", "--wait", "--timeout", "30"])
        #expect(flushed.status == 0, "\(flushed.stdout) \(flushed.stderr)")
        #expect(try stack.records().count == 1)
        // The same log shows the request once the server is back: the check above can see one.
        #expect(stack.uploadRequestsLogged() > beforeOffline, "\(stack.daemon?.errorOutput ?? "")")
        #expect(try stack.records().first?["typeID"] as? String == "common")
        // The stage the server named once the upload went through is shown by status.
        let followUps = try await stack.followUpsOnceListed()
        #expect(followUps.count == 1 && followUps.first?["followUp"] as? String == "1", "\(followUps)")
        let shown = try await stack.ctl(["status"])
        #expect(shown.stdout.contains("delivered later: the server named stage 1 next"), "\(shown.stdout)")
        let again = try await stack.ctl(["flush", "--wait", "--timeout", "5"])
        #expect(again.status == 0)
        // The flush ran the worker and returned with nothing pending; with nothing in flight
        // either, no second delivery can still come.
        #expect(try await stack.queue()["inFlight"] as? Int == 0)
        #expect(try stack.records().count == 1)
        await stack.finish()
    }

    /// 3b. `flush --wait` against a server answering 503 with `Retry-After: 30`: it asks for one
    /// flush and then only watches the queue, so the server's delay holds: two attempts in all
    /// (the one when the stage completed, the one the flush asked for), however long it waits.
    @Test func flushWaitAsksOnceAndKeepsRetryAfter() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon(environment: ["SURVEYD_BACKOFF_CAP": "600"])
        try await stack.startAndAnswerAllButLast()
        await stack.stopMock()
        try await stack.startMock(["--unavailable-share", "1", "--retry-after", "30"])
        let last = try await stack.json(["answer"] + Stack.common.last!)
        #expect(stack.outcome(last) == "queued", "\(last)")
        let flushed = try await stack.ctl(["flush", "--wait", "--timeout", "3"])
        #expect(flushed.status == 75, "\(flushed.stdout) \(flushed.stderr)")
        #expect(flushed.stderr.contains("flush: 1 pending (online)"), "\(flushed.stderr)")
        #expect(flushed.stderr.contains("1 still pending after 3s"), "\(flushed.stderr)")
        // The two attempts are logged; a third would follow them. surveyd is another process, so
        // after waiting for the two, a bounded wait gives a third the chance to show.
        #expect(await eventually { (stack.daemon?.errorOutput ?? "").components(separatedBy: "delivery failed, will retry").count - 1 >= 2 })
        try await Task.sleep(for: .milliseconds(300))
        let log = stack.daemon?.errorOutput ?? ""
        #expect(log.components(separatedBy: "delivery failed, will retry").count - 1 == 2, "\(log)")
        #expect(try stack.records().isEmpty)
        await stack.finish()
    }

    /// 4. A restart half-way continues the session; SIGKILL right after an acknowledged answer loses nothing.
    @Test func restartsKeepSessions() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon()
        _ = try await stack.ctl(["start", "--lang", "en"])
        try await stack.answer(Array(Stack.common.prefix(2)))
        #expect(await stack.daemon?.stop() == 0)
        try await stack.startDaemon()
        var status = try await stack.status()
        var session = try #require((status["sessions"] as? [[String: Any]])?.first)
        #expect(session["current"] as? Int == 3)
        try await stack.answer([Stack.common[2]])
        // Killed at once after the acknowledgement: the answer is already durable.
        await stack.daemon?.stop(signal: SIGKILL)
        try await stack.startDaemon()
        status = try await stack.status()
        session = try #require((status["sessions"] as? [[String: Any]])?.first)
        #expect(session["current"] as? Int == 4)
        try await stack.answer(Array(Stack.common.suffix(2)))
        #expect(try stack.records().count == 1)
        await stack.finish()
    }

    /// 5. A permanent rejection is a dead letter, shown by status and not retried.
    @Test func permanentRejectionIsADeadLetter() async throws {
        let stack = try Stack()
        try await stack.startMock(["--reject-share", "1"])
        try await stack.startDaemon()
        try await stack.startAndAnswerAllButLast()
        let last = try await stack.json(["answer"] + Stack.common.last!)
        #expect(stack.outcome(last) == "queued", "\(last)")
        // Wait for the refusal, then a flush: it runs the worker, which would send the letter
        // again were it still pending (and the flush would then wait for it).
        #expect(try await stack.waitFor("one dead letter") { try await stack.queue()["dead"] as? Int == 1 })
        let flushed = try await stack.ctl(["flush", "--wait", "--timeout", "10"])
        #expect(flushed.status == 0, "\(flushed.stdout) \(flushed.stderr)")
        let queue = try await stack.queue()
        #expect(queue["dead"] as? Int == 1 && queue["pending"] as? Int == 0)
        let dead = try await stack.ctl(["dead"])
        #expect(dead.stdout.contains("isSuccess: false"), "\(dead.stdout)")
        let log = stack.daemon?.errorOutput ?? ""
        #expect(log.components(separatedBy: "submission refused for good").count == 2)
        #expect(!log.contains("will retry"))
        await stack.finish()
    }

    /// 6. A second surveyd refuses to start; garbage and oversized requests get errors and the daemon keeps serving.
    @Test func secondDaemonAndBadRequests() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon()
        let sameSocket = try await stack.startDaemon(socket: stack.socket, state: stack.dir.path + "/other")
        #expect(await sameSocket.waitForExit(timeout: .seconds(30)) == 1)
        #expect(sameSocket.errorOutput.contains("another surveyd is already serving \(stack.socket)"), "\(sameSocket.errorOutput)")
        let sameState = try await stack.startDaemon(socket: stack.dir.path + "/other.sock", state: stack.state)
        #expect(await sameState.waitForExit(timeout: .seconds(30)) == 1)
        #expect(sameState.errorOutput.contains("the state directory \(stack.state) is in use by another surveyd"), "\(sameState.errorOutput)")

        // Bytes that are not HTTP never reach a route: the HTTP layer answers 400 and closes.
        let garbage = String(decoding: try await UnixHTTP.exchange(socket: stack.socket, send: Data("\u{01}\u{02}NOT HTTP AT ALL\r\n\r\n".utf8), deadline: 5), as: UTF8.self)
        #expect(garbage.hasPrefix("HTTP/1.1 400"), "\(garbage)")
        // HTTP requests the daemon can read get a 4xx with a JSON error naming the problem.
        let bad = try await UnixHTTP.request(socket: stack.socket, method: "POST", target: "/v1/answers", body: "{\"values\": 12")
        #expect(bad.status == 400, "\(bad.status) \(bad.bodyText)")
        #expect(Self.errorCode(bad.body) == "body_invalid", "\(bad.bodyText)")
        let unknown = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/v1/nothing-here")
        #expect(unknown.status == 404, "\(unknown.status) \(unknown.bodyText)")
        #expect(Self.errorCode(unknown.body) == "no_such_endpoint", "\(unknown.bodyText)")
        let big = try await UnixHTTP.request(socket: stack.socket, method: "POST", target: "/v1/sessions", body: "{\"typeId\": \"" + String(repeating: "x", count: 200_000) + "\"}")
        #expect(big.status == 413)
        let status = try await stack.ctl(["status"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("queue: 0 pending"), "\(status.stdout)")
        await stack.finish()
    }

    /// The `error.code` of a control API error body, nil when the body is not one.
    static func errorCode(_ body: Data) -> String? {
        ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]).flatMap { $0["error"] as? [String: Any] }?["code"] as? String
    }

    /// 3c. Offline means nothing is sent, even when something would accept it: the daemon's
    /// offline verdict is kept for an hour (SURVEYD_CONNECTIVITY_CACHE), and a plain TCP listener
    /// takes the server's port while that verdict stands. A flush must not reach it.
    @Test func offlineNothingReachesAListenerOnTheServersPort() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon(environment: ["SURVEYD_CONNECTIVITY_CACHE": "3600"])
        try await stack.startAndAnswerAllButLast()
        await stack.stopMock()
        let last = try await stack.json(["answer"] + Stack.common.last!)
        #expect(stack.outcome(last) == "queued", "\(last)")
        // The failed connection makes the daemon check again: offline, kept for an hour.
        let status = try await stack.statusOnceOfflineAndIdle()
        try #require((status["connectivity"] as? [String: Any])?["state"] as? String == "offline", "\(status)")
        let listener = try TCPListener(port: stack.port)
        defer { listener.stop() }
        let flushed = try await stack.ctl(["flush", "--wait", "--timeout", "2"])
        #expect(flushed.status == 75, "\(flushed.stdout) \(flushed.stderr)")
        #expect(try await stack.queue()["pending"] as? Int == 1)
        #expect(listener.connections == 0 && listener.bytes.isEmpty, "\(listener.connections) connections: \(String(decoding: listener.bytes, as: UTF8.self))")
        await stack.finish()
    }

    /// 7. SIGTERM starts a graceful shutdown, which waits for an upload the server never answers;
    /// SIGINT then ends surveyd at once with exit 1 (README, surveyd exit codes).
    @Test func aSecondSignalEndsASlowShutdown() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon()
        try await stack.startAndAnswerAllButLast()
        await stack.stopMock()
        try await stack.startMock(["--hang-share", "1"])
        let last = try await stack.json(["answer"] + Stack.common.last!)
        #expect(stack.outcome(last) == "queued", "\(last)")
        #expect(try await stack.queue()["inFlight"] as? Int == 1)
        let daemon = try #require(stack.daemon)
        kill(daemon.pid, SIGTERM)
        // The upload hangs (30 s read timeout), so the graceful shutdown cannot finish meanwhile;
        // the bounded wait lets the first signal reach surveyd (another process) before the second.
        try await Task.sleep(for: .milliseconds(500))
        try #require(daemon.isRunning, "surveyd ended its shutdown before a second signal could be sent: \(daemon.errorOutput)")
        kill(daemon.pid, SIGINT)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 1, "\(daemon.errorOutput)")
        #expect(daemon.errorOutput.contains("surveyd: second signal, exiting now"), "\(daemon.errorOutput)")
        await stack.finish()
    }

    /// 7b. `surveyctl answer --question`: the same answer twice is recorded once; an answer to a
    /// question the session no longer asks is refused and the current question is shown.
    @Test func answersNamingTheirQuestion() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon()
        _ = try await stack.ctl(["start", "--lang", "en"])
        let first = try await stack.ctl(["answer", "--question", "name", "--position", "1", "Kim Minsu"])
        #expect(first.status == 0 && first.stdout.contains("question 2 of 5"), "\(first.stdout) \(first.stderr)")
        let again = try await stack.ctl(["answer", "--question", "name", "--position", "1", "Kim Minsu"])
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
        #expect(again.stdout.contains("recorded already") && again.stdout.contains("question 2 of 5"), "\(again.stdout)")
        let stale = try await stack.ctl(["answer", "--question", "name", "Lee Minsu"])
        #expect(stale.status == 65)
        #expect(stale.stderr.contains("no longer asks the question \"name\""), "\(stale.stderr)")
        #expect(stale.stderr.contains("question 2 of 5") && stale.stderr.contains("[email, text]"), "\(stale.stderr)")
        let json = try await stack.json(["answer", "--question", "email", "kim@example.com"])
        #expect((json["session"] as? [String: Any])?["current"] as? Int == 3, "\(json)")
        await stack.finish()
    }

    /// 8. `surveyd --demo` from the repository root: the embedded mock server, a daemon on the
    /// socket it prints, questionnaires served; SIGTERM ends it with 0.
    /// `surveyctl watch` follows the daemon's events: sessions, answers (their questions only) and
    /// the stage queued and delivered, as they happen.
    @Test func watchShowsWhatHappens() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon()
        let watch = try await BackgroundProcess.start(stack.ctlBinary, ["watch", "--timeout", "30", "--socket", stack.socket], deadline: .seconds(60))
        _ = try await watch.waitForLine(containing: "hello")
        try await stack.startAndAnswerAllButLast()
        _ = try await stack.ctl(["answer"] + Stack.common.last!)
        _ = try await watch.waitForLine(containing: "  delivered  ")
        await watch.stop()
        let lines = watch.output.split(separator: "\n")
        #expect(lines.filter { $0.contains("session_started") }.count == 1, "\(watch.output)")
        #expect(lines.filter { $0.contains("answer_accepted") }.count == 5)
        #expect(lines.contains { $0.contains("answer_accepted") && $0.contains("question emailConfirm") })
        #expect(lines.contains { $0.contains("stage_queued") && $0.contains("stage common") })
        #expect(lines.contains { $0.contains("delivered") && $0.contains("next stage 1") })
        #expect(!watch.output.contains("Kim Minsu") && !watch.output.contains("kim@example.com"), "no answer contents")
        await stack.finish()
    }

    @Test func demoModeFromTheRepositoryRoot() async throws {
        let dir = try TemporaryDirectory(prefix: "demo")
        defer { dir.remove() }
        let surveyctl = PackagePaths.executable("surveyctl")
        let demo = try await BackgroundProcess.start(PackagePaths.executable("surveyd"), ["--demo", "--state-dir", dir.path], currentDirectory: PackagePaths.root, deadline: .seconds(60))
        let line = try await demo.waitForLine(containing: "control socket:")
        let socket = String(line.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces)
        #expect(socket == dir.path + "/surveyd.sock")
        let status = try await runProcess(surveyctl, ["status", "--socket", socket], deadline: .seconds(30))
        #expect(status.status == 0, "\(status.stdout) \(status.stderr)")
        #expect(status.stdout.contains("surveyd 0.") && status.stdout.contains("sessions: 0 open"), "\(status.stdout)")
        // Answers are encrypted under the demo's own key, kept owner-only in its state directory.
        #expect(status.stdout.contains("encryption: on (key "), "\(status.stdout)")
        var keyStat = stat()
        #expect(stat(dir.path + "/state/demo-key", &keyStat) == 0 && keyStat.st_mode & 0o777 == 0o600 && keyStat.st_size == 32)
        let started = try await runProcess(surveyctl, ["start", "--lang", "en", "--socket", socket], deadline: .seconds(30))
        #expect(started.status == 0 && started.stdout.contains("question 1 of 5"), "\(started.stdout) \(started.stderr)")
        // The kiosk pages are on, at a loopback URL printed above the socket's line.
        let kiosk = try #require(demo.output.split(separator: "\n").first { $0.contains("kiosk pages:") })
        let url = try #require(kiosk.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") })
        let port = try #require(Int(url.dropFirst("http://127.0.0.1:".count).prefix { $0.isNumber }))
        let welcome = try await LoopbackHTTP.request(port: port, method: "GET", target: "/?lang=en")
        #expect(welcome.status == 200 && welcome.bodyText.contains("Start"), "\(welcome.status) \(welcome.bodyText)")
        #expect(await demo.stop() == 0, "\(demo.errorOutput)")
    }

    /// 8b. Elsewhere without --fixtures, --demo says where to run it; with --fixtures it runs.
    @Test func demoModeNeedsItsFixtures() async throws {
        let dir = try TemporaryDirectory(prefix: "demo")
        defer { dir.remove() }
        let surveyd = PackagePaths.executable("surveyd")
        let lost = try await runProcess(surveyd, ["--demo", "--state-dir", dir.path], currentDirectory: dir.url, deadline: .seconds(30))
        #expect(lost.status == 1)
        #expect(lost.stderr.contains("run surveyd --demo from the repository root or give --fixtures PATH"), "\(lost.stderr)")
        let demo = try await BackgroundProcess.start(surveyd, ["--demo", "--fixtures", PackagePaths.mock.path, "--state-dir", dir.path], currentDirectory: dir.url, deadline: .seconds(60))
        let line = try await demo.waitForLine(containing: "control socket:")
        let socket = String(line.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces)
        let status = try await runProcess(PackagePaths.executable("surveyctl"), ["status", "--json", "--socket", socket], deadline: .seconds(30))
        #expect(status.status == 0 && status.stdout.contains("\"connectivity\""), "\(status.stdout) \(status.stderr)")
        #expect(await demo.stop() == 0, "\(demo.errorOutput)")
    }
}

import Foundation
import SurveyTesting
import Testing

/// A real surveyd behind a captive portal (the mock server answering every `/api/...` request as
/// a portal does, then stepping aside): a respondent finished behind it is not delivered, not a
/// dead letter, pending with the portal named in `status`, `/v1/health` and the metrics, and is
/// delivered exactly once within the probe and backoff caps after the portal is gone, with no
/// operator action. Nothing reaches the portal's login page on another origin.
@Suite(.serialized, .timeLimit(.minutes(10))) struct CaptivePortalEndToEndTests {
    /// The eight ways a portal answers: `portal` fault, redirect status, login page elsewhere.
    static let portals: [(String, Int?, Bool)] = [
        ("status403", nil, false),
        ("status404", nil, false),
        ("html", nil, false),
        ("redirect", 302, false),
        ("redirect", 307, true),
        ("json", nil, false),
        ("empty", nil, false),
        ("status511", nil, false),
    ]

    @Test(arguments: portals)
    func aRespondentFinishedBehindAPortalIsDeliveredOnceAfterIt(portal: String, redirect: Int?, elsewhere: Bool) async throws {
        let name = portal + (redirect.map { " \($0)" } ?? "")
        let login = try TCPListener()
        defer { login.stop() }
        let stack = try Stack()
        let token = stack.dir.path + "/token"
        try "portal-test-token".write(toFile: token, atomically: true, encoding: .utf8)
        try await stack.startMock()
        try await stack.startDaemon(["--token-file", token, "--log-level", "debug"], environment: ["SURVEYD_PROBE_INTERVAL_CAP": "4", "SURVEYD_BACKOFF_CAP": "4"])
        try await stack.startAndAnswerAllButLast()

        var faults = ["\"portal\": \"\(portal)\""]
        if let redirect { faults.append("\"portalRedirectStatus\": \(redirect)") }
        if elsewhere { faults.append("\"portalLoginURL\": \"http://127.0.0.1:\(login.port)/login\"") }
        try await stack.setMockFaults("{" + faults.joined(separator: ", ") + "}")
        let last = try await stack.json(["answer"] + Stack.common.last!)
        #expect(stack.outcome(last) == "queued", "\(name): \(last)")

        var status: [String: Any] = [:]
        #expect(try await stack.waitFor("\(name): connectivity portal") {
            status = try await stack.status()
            return (status["connectivity"] as? [String: Any])?["state"] as? String == "portal"
        })
        let connectivity = try #require(status["connectivity"] as? [String: Any])
        let seen = try #require(connectivity["portal"] as? [String: Any], "\(name): \(connectivity)")
        #expect((seen["answer"] as? String)?.isEmpty == false)
        if elsewhere { #expect(seen["redirect"] as? String == "http://127.0.0.1:\(login.port)/login", "\(name): \(seen)") }
        #expect((connectivity["notice"] as? String)?.contains("plain http") == true, "\(connectivity)")
        // It meets the portal again (its connectivity check asks for the questionnaire, and gets
        // the portal's answer) before anything is judged: still pending, never dead.
        let checks = { (stack.daemon?.errorOutput ?? "").components(separatedBy: "to tell it from a captive portal").count - 1 }
        let checksBefore = checks()
        #expect(try await stack.waitFor("\(name): two more connectivity checks behind the portal", every: .milliseconds(50)) { checks() >= checksBefore + 2 })
        let queue = try await stack.queue()
        #expect(queue["pending"] as? Int == 1 && queue["dead"] as? Int == 0, "\(name): \(queue)")
        #expect(try await stack.status()["paused"] == nil, "\(name): delivery paused as if the server refused the token")
        #expect(try stack.records().isEmpty, "\(name): delivered through the portal")
        let text = try await stack.ctl(["status"])
        #expect(text.stdout.contains("connectivity: portal") && text.stdout.contains("the network answers in the survey server's place: if the network shows a login page (a captive portal), accept its terms or use another network"), "\(name): \(text.stdout)")
        #expect(text.stdout.contains("something else answers in the survey server's place"), "\(name): the waiting line names it: \(text.stdout)")
        // A 403 page may also be the server refusing the token in a form it did not expect: the
        // advice says so, also after the connectivity checks behind the portal.
        let advice = try #require(try await (stack.status()["connectivity"] as? [String: Any])?["portal"] as? [String: Any])["advice"] as? String
        #expect(advice?.contains("refusing the token in a form surveyd does not expect") == (portal == "status403"), "\(name): \(advice ?? "no advice")")
        let health = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/v1/health")
        #expect(health.status == 200 && health.bodyText.contains("\"portal\""), "\(name): \(health.bodyText)")
        let metrics = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/metrics")
        #expect(metrics.bodyText.contains(#"surveyd_connectivity_state{state="portal"} 1"#), "\(name): \(metrics.bodyText)")
        let log = stack.daemon?.errorOutput ?? ""
        #expect(log.contains("the network answers in the survey server's place"), "\(name): no log line")
        // The next respondent still starts, from the last good copy of the questionnaire.
        let next = try await stack.ctl(["start", "--lang", "en"])
        #expect(next.status == 0 && next.stdout.contains("question 1 of 5"), "\(name): \(next.stdout) \(next.stderr)")

        // The portal steps aside: delivered once, under the same key, with no operator action.
        let gone = ContinuousClock.now
        try await stack.setMockFaults("{}")
        _ = try await stack.waitFor("\(name): delivered after the portal", every: .milliseconds(20)) { try stack.records().count >= 1 }
        let took = ContinuousClock.now - gone
        let records = try await stack.waitForRecords(1)
        report("captive portal \(name): delivered \(took) after the portal stepped aside")
        #expect(records.count == 1, "\(name): \(records)")
        #expect(try await stack.queue()["dead"] as? Int == 0)
        #expect(try await stack.waitFor("\(name): online again") {
            (try await stack.status()["connectivity"] as? [String: Any])?["state"] as? String == "online"
        })
        #expect((stack.daemon?.errorOutput ?? "").contains("the survey server answers again"))
        #expect(login.connections == 0 && login.bytes.isEmpty, "\(name): the login page's origin received \(login.bytes.count) bytes")
        await stack.finish()
    }

    /// One stage's questionnaire broken on the server (served as an empty body) is that stage's
    /// problem, not a portal: the server answers its identity check, so the stage is
    /// `definition_invalid`, another stage never fetched still starts, and connectivity stays online.
    @Test func oneBrokenQuestionnaireIsThatStagesProblemOnly() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon(["--log-level", "debug"])
        try await stack.setMockFaults(#"{"emptyQuestionnaireStage": "1"}"#)
        let broken = try await UnixHTTP.request(socket: stack.socket, method: "POST", target: "/v1/sessions", body: #"{"typeId": "1", "lang": "en"}"#)
        #expect(broken.status == 503 && DaemonEndToEndTests.errorCode(broken.body) == "definition_invalid", "\(broken.status) \(broken.bodyText)")
        let other = try await UnixHTTP.request(socket: stack.socket, method: "POST", target: "/v1/sessions", body: #"{"typeId": "2", "lang": "en"}"#)
        #expect(other.status == 201 || other.status == 200, "another stage, never fetched, starts: \(other.status) \(other.bodyText)")
        let first = try await stack.ctl(["start", "--lang", "en"])
        #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
        let status = try await stack.status()
        let connectivity = try #require(status["connectivity"] as? [String: Any])
        #expect(connectivity["state"] as? String == "online", "\(connectivity)")
        #expect(connectivity["portal"] == nil, "\(connectivity)")
        let log = stack.daemon?.errorOutput ?? ""
        #expect(!log.contains("the network answers in the survey server's place"), "taken for a portal")
        #expect(log.contains("the server answers its identity check"), "no identity check before judging")
        await stack.finish()
    }
}

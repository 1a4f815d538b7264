import Foundation
import SurveyTesting
import Testing

/// The survey server refuses the daemon's token: delivery pauses (no dead letters), status and
/// metrics say why, and a corrected token file resumes it; the submission is delivered once.
@Suite(.serialized, .timeLimit(.minutes(10))) struct AuthPauseEndToEndTests {
    @Test func aRefusedTokenPausesUntilTheTokenFileChanges() async throws {
        let stack = try Stack()
        let token = stack.dir.path + "/token"
        try "old-token".write(toFile: token, atomically: true, encoding: .utf8)
        try await stack.startMock()
        let fault = try await LoopbackHTTP.request(port: stack.port, method: "POST", target: "/admin/faults", body: #"{"requiredToken":"new-token"}"#)
        #expect(fault.status == 200, "\(fault.bodyText)")
        try await stack.startDaemon(["--token-file", token])
        try await stack.startAndAnswerAllButLast()
        let last = try await stack.json(["answer"] + Stack.common.last!)
        #expect(stack.outcome(last) == "queued", "\(last)")

        var status: [String: Any] = [:]
        #expect(await eventually {
            status = (try? await stack.status()) ?? [:]
            return status["paused"] != nil
        }, "\(status)")
        let paused = try #require(status["paused"] as? [String: Any])
        #expect(paused["reason"] as? String == "the server refused the token (401)")
        let queue = try #require(status["queue"] as? [String: Any])
        #expect(queue["pending"] as? Int == 1 && queue["dead"] as? Int == 0, "\(queue)")
        let text = try await stack.ctl(["status"])
        #expect(text.stdout.contains("delivery paused since") && text.stdout.contains("the server refused the token (401)"), "\(text.stdout)")
        let metrics = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/metrics")
        #expect(metrics.bodyText.contains("surveyd_delivery_paused 1"), "\(metrics.bodyText)")
        #expect(try stack.records().isEmpty)

        try "new-token".write(toFile: token, atomically: true, encoding: .utf8)
        let flushed = try await stack.ctl(["flush", "--wait", "--timeout", "30"])
        #expect(flushed.status == 0, "\(flushed.stdout) \(flushed.stderr)")
        #expect(try stack.records().count == 1)
        let after = try await stack.status()
        #expect(after["paused"] == nil && (after["queue"] as? [String: Any])?["dead"] as? Int == 0)
        let resume = try await stack.ctl(["resume"])
        #expect(resume.status == 0 && resume.stdout.contains("delivery was not paused"), "\(resume.stdout)")
        await stack.finish()
    }
}

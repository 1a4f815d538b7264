import Foundation
import SurveyTesting
import Testing

/// A 503 with `Retry-After` holds every upload off for the server's time and the ramp's jittered
/// hold-off: `status` announces when the next upload really starts and why, the metrics show the
/// hold-off, and once the server is well again the upload starts at the announced time by itself,
/// without a flush.
@Suite(.serialized, .timeLimit(.minutes(10))) struct HoldOffEndToEndTests {
    @Test func theAnnouncedRetryIsWhenTheUploadStarts() async throws {
        let stack = try Stack()
        stack.deadline = .seconds(180)
        try await stack.startMock()
        // A cap above the hold-off, so the server's Retry-After is honoured as sent.
        try await stack.startDaemon(environment: ["SURVEYD_BACKOFF_CAP": "600"])
        try await stack.startAndAnswerAllButLast()
        try await stack.setMockFaults(#"{"unavailableShare": 1, "retryAfterSeconds": 20}"#)
        let last = try await stack.json(["answer"] + Stack.common.last!)
        #expect(stack.outcome(last) == "queued", "\(last)")

        var queue: [String: Any] = [:]
        #expect(await eventually(every: .milliseconds(50)) {
            queue = (try? await stack.queue()) ?? [:]
            return queue["holdOff"] != nil && queue["inFlight"] as? Int == 0
        }, "\(queue)")
        let holdOff = try #require(queue["holdOff"] as? [String: Any])
        #expect(holdOff["reason"] as? String == "the server asked to wait (503)", "\(holdOff)")
        #expect(holdOff["status"] as? Int == 503)
        let until = try #require((holdOff["until"] as? String).flatMap(Self.date))
        let announced = try #require((queue["nextRetryAt"] as? String).flatMap(Self.date), "\(queue)")
        // The hold-off is the server's 20 s (long enough for the checks below on a loaded
        // machine, before a retry could refuse again) plus a draw of up to 12 s; the item's own
        // backoff (the 20 s) ends before it, so the announced start is the hold-off's end.
        #expect(announced == until, "next retry \(announced), hold-off until \(until)")
        #expect(announced.timeIntervalSinceNow <= 33, "\(announced)")

        let text = try await stack.ctl(["status"])
        #expect(text.stdout.contains("holding off: the server asked to wait (503), until \(holdOff["until"] as? String ?? "")"), "\(text.stdout)")
        // The gauge is the time left of the hold-off status announced, whenever it is read (on a
        // loaded machine the checks above can take most of the hold-off): between what was left
        // when the scrape was sent and when its reply came (`until` is written to the whole second).
        let sent = Date()
        let metrics = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/metrics")
        let replied = Date()
        let gauge = metrics.bodyText.split(separator: "\n").first { $0.hasPrefix(#"surveyd_delivery_hold_off_seconds{status="503"} "#) }
        let left = try #require(gauge.flatMap { Double($0.split(separator: " ").last ?? "") }, "\(metrics.bodyText)")
        #expect(left >= max(0, until.timeIntervalSince(replied)) && left <= max(0, until.timeIntervalSince(sent) + 1), "hold-off gauge \(left) s, until \(until), scraped from \(sent) to \(replied)")

        try await stack.setMockFaults("{}")
        #expect(try await stack.waitFor("the upload at the server", timeout: .seconds(60), every: .milliseconds(50)) { try stack.records().count == 1 })
        // When the server received the upload, not when this test saw it: on a loaded machine the
        // test's polling can lag by seconds.
        let record = try #require(try stack.records().first)
        let started = try #require((record["receivedAt"] as? String).flatMap(Self.preciseDate), "\(record)")
        // The times are written to the whole second, floored: the real start is within a second
        // after `announced`; the upload may start up to a second after it, plus its way to the
        // server.
        #expect(started.timeIntervalSince(announced) >= -0.1, "started \(started), announced \(announced)")
        #expect(started.timeIntervalSince(announced) <= 2.1, "started \(started), announced \(announced)")
        let after = try await stack.queue()
        #expect(after["holdOff"] == nil && after["nextRetryAt"] == nil && after["pending"] as? Int == 0, "\(after)")
        await stack.finish()
    }

    static func date(_ text: String) -> Date? { try? Date(text, strategy: .iso8601) }
    static func preciseDate(_ text: String) -> Date? { try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) }
}

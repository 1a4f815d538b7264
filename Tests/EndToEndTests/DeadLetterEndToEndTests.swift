import Foundation
import SurveyTesting
import Testing

/// Dead letters and `surveyctl requeue` against the mock server, which stores each reply under
/// its idempotency key (a rejection too) and answers a repeated key with the stored reply.
extension DaemonEndToEndTests {
    /// The mock rejects the stage (`isSuccess: false`, stored under the key); once the fault is
    /// cleared, `requeue --keep-key` gets the stored rejection again, and a plain `requeue` sends
    /// it under a new key: accepted once, and its session records the follow-up stage.
    @Test(.timeLimit(.minutes(10))) func aRejectedDeadLetterIsRequeuedWithANewKeyAndDeliveredOnce() async throws {
        let stack = try Stack()
        try await stack.startMock(["--reject-share", "1"])
        try await stack.startDaemon()
        try await stack.startAndAnswerAllButLast()
        let last = try await stack.json(["answer"] + Stack.common.last!)
        #expect(stack.outcome(last) == "queued", "\(last)")
        let letter = try await stack.waitForOneDeadLetter()
        #expect(letter["outcome"] as? String == "rejected", "\(letter)")
        let id = try #require(letter["id"] as? String)
        let key = try #require(letter["idempotencyKey"] as? String)
        let listed = try await stack.ctl(["dead"])
        #expect(listed.stdout.contains("rejected by the server"), "\(listed.stdout)")
        try await stack.setMockFaults("{}")

        // Today's behaviour on demand: the same key gets the stored rejection again.
        let kept = try await stack.json(["requeue", id, "--keep-key"])
        #expect(kept["idempotencyKey"] as? String == key && kept["previousIdempotencyKey"] == nil, "\(kept)")
        let again = try await stack.waitForOneDeadLetter(after: 1)
        #expect(again["idempotencyKey"] as? String == key && again["outcome"] as? String == "rejected", "\(again)")
        #expect(try stack.records().isEmpty)

        let requeued = try await stack.ctl(["requeue", id])
        #expect(requeued.status == 0, "\(requeued.stdout) \(requeued.stderr)")
        #expect(requeued.stdout.contains("with a new idempotency key"), "\(requeued.stdout)")
        #expect(requeued.stdout.contains("(it was \(key))"), "\(requeued.stdout)")
        let records = try await stack.waitForRecords(1)
        #expect(records.count == 1, "\(records)")
        let newKey = try #require(records.first?["idempotencyKey"] as? String)
        #expect(newKey != key)
        #expect(requeued.stdout.contains(newKey), "\(requeued.stdout)")
        // The session that ended `queued` learns of the delivery under the new key.
        let followUps = try await stack.followUpsOnceListed()
        #expect(followUps.count == 1 && followUps.first?["followUp"] as? String == "1", "\(followUps)")
        // Delivered once: nothing more is sent, a flush finds nothing to do.
        let flushed = try await stack.ctl(["flush", "--wait", "--timeout", "5"])
        #expect(flushed.status == 0, "\(flushed.stdout) \(flushed.stderr)")
        let queue = try await stack.queue()
        #expect(queue["dead"] as? Int == 0 && queue["pending"] as? Int == 0, "\(queue)")
        #expect(try stack.records().count == 1)
        await stack.finish()
    }

    /// An unreadable reply leaves the outcome unknown: `requeue` keeps the key (the server may
    /// hold the submission under it); `--new-key` overrides, after a restart too.
    @Test(.timeLimit(.minutes(10))) func anUnknownOutcomeKeepsItsKeyUnlessToldOtherwise() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon()
        try await stack.startAndAnswerAllButLast()
        try await stack.setMockFaults(#"{"malformedShare": 1}"#)
        let last = try await stack.json(["answer"] + Stack.common.last!)
        #expect(stack.outcome(last) == "queued", "\(last)")
        let letter = try await stack.waitForOneDeadLetter()
        #expect(letter["outcome"] as? String == "unknown", "\(letter)")
        let id = try #require(letter["id"] as? String)
        let key = try #require(letter["idempotencyKey"] as? String)
        let listed = try await stack.ctl(["dead"])
        #expect(listed.stdout.contains("outcome unknown"), "\(listed.stdout)")

        // Still malformed: requeued with its key, dead again with the same key.
        let kept = try await stack.ctl(["requeue", id])
        #expect(kept.stdout.contains("it keeps its idempotency key \(key)"), "\(kept.stdout)")
        let again = try await stack.waitForOneDeadLetter(after: 1)
        #expect(again["idempotencyKey"] as? String == key, "\(again)")

        // --new-key on a letter of unknown outcome; the new key is journaled: a restart keeps it
        // (the daemon restarts before the mock answers well again).
        let renewed = try await stack.json(["requeue", id, "--new-key"])
        let newKey = try #require(renewed["idempotencyKey"] as? String)
        #expect(newKey != key && renewed["previousIdempotencyKey"] as? String == key, "\(renewed)")
        let third = try await stack.waitForOneDeadLetter(after: 2)
        #expect(third["idempotencyKey"] as? String == newKey && third["outcome"] as? String == "unknown", "\(third)")
        #expect(await stack.daemon?.stop() == 0)
        try await stack.startDaemon()
        let afterRestart = try await stack.waitForOneDeadLetter(after: nil)
        #expect(afterRestart["idempotencyKey"] as? String == newKey && afterRestart["outcome"] as? String == "unknown", "\(afterRestart)")
        try await stack.setMockFaults("{}")
        let last2 = try await stack.ctl(["requeue", id])
        #expect(last2.stdout.contains("it keeps its idempotency key \(newKey)"), "\(last2.stdout)")
        let records = try await stack.waitForRecords(1)
        #expect(records.map { $0["idempotencyKey"] as? String } == [newKey], "\(records)")
        await stack.finish()
    }

    /// Dead-letter ids are parsed strictly: anything but the id's canonical text is no dead letter.
    @Test(.timeLimit(.minutes(10))) func deadLetterIdsAreStrict() async throws {
        let stack = try Stack()
        try await stack.startMock(["--reject-share", "1"])
        try await stack.startDaemon()
        try await stack.startAndAnswerAllButLast()
        _ = try await stack.json(["answer"] + Stack.common.last!)
        let letter = try await stack.waitForOneDeadLetter()
        let id = try #require(letter["id"] as? String)
        #expect(id == "1")
        for bad in ["1%00x", "+1", "%2B1", "01", "%201", "1%20", "1.0", "0x1", "%EF%BC%91", "18446744073709551617", "99999999999999999999999"] {
            let reply = try await UnixHTTP.request(socket: stack.socket, method: "POST", target: "/v1/dead/\(bad)/requeue")
            #expect(reply.status == 404 && Self.errorCode(reply.body) == "no_such_dead_letter", "\(bad): \(reply.status) \(reply.bodyText)")
        }
        let empty = try await UnixHTTP.request(socket: stack.socket, method: "POST", target: "/v1/dead//requeue")
        #expect(empty.status == 404 && Self.errorCode(empty.body) == "no_such_dead_letter", "empty id: \(empty.status) \(empty.bodyText)")
        let queue = try await stack.queue()
        #expect(queue["dead"] as? Int == 1 && queue["pending"] as? Int == 0, "\(queue)")
        await stack.finish()
    }
}

extension Stack {
    /// Replaces the mock server's faults while it runs (its stored replies stay).
    func setMockFaults(_ json: String) async throws {
        let reply = try await LoopbackHTTP.request(port: port, method: "POST", target: "/admin/faults", body: json)
        #expect(reply.status == 200, "\(reply.status) \(reply.bodyText)")
    }

    /// `surveyctl dead --json`.
    func deadLetters() async throws -> [[String: Any]] {
        let result = try await ctl(["dead", "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result.stdout) \(result.stderr)")
    }

    /// Polls (for up to 10 s) until the daemon lists one dead letter, after it has logged more
    /// than `refusals` refusals (nil: whatever it logged); returns the letter, and fails otherwise.
    func waitForOneDeadLetter(after refusals: Int? = 0) async throws -> [String: Any] {
        var letters: [[String: Any]] = []
        #expect(try await waitFor("one dead letter after \(refusals.map(String.init) ?? "any") refusals") {
            let log = daemon?.errorOutput ?? ""
            let logged = log.components(separatedBy: "submission refused for good").count + log.components(separatedBy: "submission kept aside").count - 2
            guard logged > refusals ?? -1 else { return false }
            letters = try await deadLetters()
            return letters.count == 1
        }, "no single dead letter listed in time")
        return try #require(letters.first, "no dead letter: \(daemon?.errorOutput ?? "")")
    }

    /// Polls (for up to 10 s) until the mock has recorded `count` accepted submissions, then until
    /// nothing is pending or in flight, so that a second delivery would show; returns the records.
    func waitForRecords(_ count: Int) async throws -> [[String: Any]] {
        #expect(try await waitFor("\(count) submissions at the server") { try records().count >= count }, "fewer than \(count) records in time")
        #expect(try await waitFor("nothing pending or in flight") {
            let queue = try await queue()
            return queue["pending"] as? Int == 0 && queue["inFlight"] as? Int == 0
        })
        return try records()
    }
}

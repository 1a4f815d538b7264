#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// surveyd with a key, as built: what it writes is encrypted, `status` says so, and every refusal
/// exits 78 naming the file and what is wrong, with the state directory byte for byte as it was.
@Suite(.serialized, .timeLimit(.minutes(10))) struct EncryptionEndToEndTests {
    static func writeKey(_ path: String, fill: UInt8, mode: mode_t = 0o600) throws {
        try Data((0..<32).map { UInt8(truncatingIfNeeded: Int($0) * 13 + Int(fill)) }).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
    }

    @Test func refusalsExit78NamingTheFileAndLeaveTheStateAsItWas() async throws {
        let stack = try Stack()
        try await stack.startMock()
        let key = stack.dir.path + "/key"
        try Self.writeKey(key, fill: 1)
        try await stack.startDaemon(["--encryption-key-file", key])
        let status = try await stack.status()
        let encryption = try #require(status["encryption"] as? [String: Any])
        #expect(encryption["state"] as? String == "on")
        let fingerprint = try #require(encryption["fingerprint"] as? String)
        let text = try await stack.ctl(["status"])
        #expect(text.stdout.contains("encryption: on (key \(fingerprint))"), "\(text.stdout)")
        #expect(!text.stdout.contains("010e1b"), "nothing of the key is shown")
        _ = try await stack.ctl(["start", "--lang", "en"])
        try await stack.answer([["Quentinmarrow"]])
        _ = await stack.daemon?.stop()
        stack.daemon = nil
        #expect(DiskSearch.firstFile(under: stack.state, holding: "Quentinmarrow") == nil)
        let before = try DirectorySnapshot.take(stack.state)

        let other = stack.dir.path + "/other"
        try Self.writeKey(other, fill: 2)
        let loose = stack.dir.path + "/loose"
        try Self.writeKey(loose, fill: 1, mode: 0o644)
        let short = stack.dir.path + "/short"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: short))
        chmod(short, 0o600)
        let cases: [(flags: [String], says: [String])] = [
            (["--encryption-key-file", other], [stack.state + "/", "segment-", "fingerprint \(fingerprint)"]),
            ([], [stack.state + "/", "no encryption key"]),
            (["--encryption-key-file", loose], [loose, "chmod 600"]),
            (["--encryption-key-file", short], [short, "3 bytes"]),
            (["--encryption-key-file", stack.dir.path + "/missing"], [stack.dir.path + "/missing", "does not exist"]),
            (["--encryption-key-file", other, "--encryption-old-key-files", short], [short]),
        ]
        for (flags, says) in cases {
            let result = try await runProcess(
                stack.daemonBinary,
                ["--server-url", stack.serverURL, "--socket", stack.socket, "--state-dir", stack.state] + flags,
                environment: ["HOME": stack.dir.path], deadline: .seconds(30))
            #expect(result.status == 78, "\(flags): \(result.status) \(result.stderr)")
            for part in says { #expect(result.stderr.contains(part), "\(flags): \(result.stderr)") }
            #expect(try DirectorySnapshot.take(stack.state) == before, "\(flags) changed the state directory")
        }
        // The right key opens it again, with what it held.
        try await stack.startDaemon(["--encryption-key-file", key])
        let sessions = try #require(try await stack.status()["sessions"] as? [[String: Any]])
        #expect(sessions.count == 1)
        await stack.finish()
    }

    /// `GET /v1/sessions/{id}` as JSON.
    static func session(_ stack: Stack, _ id: String) async throws -> [String: Any] {
        let reply = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/v1/sessions/\(id)")
        return try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any], "\(reply.status) \(reply.bodyText)")
    }

    /// A kiosk without a key is killed with three finished respondents pending (the server down)
    /// and one mid-survey; the operator turns encryption on. Across a keyed start, a clean stop and
    /// another keyed start, the three stay pending and are delivered once when the server returns,
    /// and the open respondent goes on where they were. Nothing is set aside.
    @Test func encryptionTurnedOnAfterAKillKeepsEveryAnswerAcrossStarts() async throws {
        try await Stack.with { stack in
            try await stack.startMock()
            try await stack.startDaemon()
            for name in ["Abelmoor", "Birchwell", "Cedarvale"] {
                _ = try await stack.ctl(["start", "--lang", "en"])
                // The questionnaire is cached by the first start; then the server goes.
                if stack.mock != nil { await stack.stopMock() }
                try await stack.answer([[name], ["\(name.lowercased()).mail@example.com"], ["\(name.lowercased()).mail@example.com"], ["30"]])
                let last = try await stack.json(["answer", "5"])
                #expect(stack.outcome(last) == "queued", "\(name): \(last)")
            }
            let open = try await stack.json(["start", "--lang", "en"])
            let openID = try #require(open["id"] as? String, "\(open)")
            try await stack.answer([["Dunmarsh"], ["dunmarsh.mail@example.com"]])
            stack.daemon?.send(SIGKILL)
            _ = await stack.daemon?.waitForExit(timeout: .seconds(10))
            stack.daemon = nil

            let key = stack.dir.path + "/key"
            try Self.writeKey(key, fill: 7)
            for start in 1 ... 2 {
                try await stack.startDaemon(["--encryption-key-file", key])
                let queue = try await stack.queue()
                #expect(queue["pending"] as? Int == 3, "keyed start \(start): \(queue)")
                let session = try await Self.session(stack, openID)
                #expect(session["current"] as? Int == 3 && session["state"] as? String == "asking", "keyed start \(start): \(session)")
                let encryption = try #require(try await stack.status()["encryption"] as? [String: Any])
                #expect((encryption["setAsideSegments"] as? [String])?.isEmpty == true, "keyed start \(start): \(encryption)")
                #expect(await stack.daemon?.stop() == 0)
                stack.daemon = nil
            }
            let names = try FileManager.default.subpathsOfDirectory(atPath: stack.state)
            #expect(!names.contains { $0.hasSuffix(".unlisted") }, "\(names)")

            try await stack.startMock()
            try await stack.startDaemon(["--encryption-key-file", key])
            let records = try await stack.waitForRecords(3)
            #expect(records.count == 3 && Set(records.compactMap { $0["idempotencyKey"] as? String }).count == 3, "\(records)")
            try await stack.answer([["dunmarsh.mail@example.com"]])
            let session = try await Self.session(stack, openID)
            #expect(session["current"] as? Int == 4, "the open respondent goes on: \(session)")
        }
    }

    /// With encrypted segments present, deleting both journals' lists of plain segments and
    /// copying in another kiosk's plain sessions segment (named to sort first) does not take its
    /// respondent in: every plain segment is set aside, named in `status` and the metrics, and the
    /// kiosk's own encrypted records are still read.
    @Test func aDeletedListTakesInNoSegmentInTheClear() async throws {
        // Another kiosk, without a key: a respondent mid-survey, killed.
        let other = try Stack()
        try await other.startMock()
        try await other.startDaemon()
        let foreign = try await other.json(["start", "--lang", "en"])
        let foreignID = try #require(foreign["id"] as? String, "\(foreign)")
        try await other.answer([["Othermere"], ["othermere.mail@example.com"]])
        other.daemon?.send(SIGKILL)
        _ = await other.daemon?.waitForExit(timeout: .seconds(10))
        other.daemon = nil
        let foreignSegment = try #require(try FileManager.default.contentsOfDirectory(atPath: other.state + "/sessions").filter { $0.hasPrefix("segment-") && $0.hasSuffix(".log") }.sorted().first)
        let foreignBytes = try Data(contentsOf: URL(fileURLWithPath: other.state + "/sessions/" + foreignSegment))
        await other.finish()

        try await Stack.with { stack in
            try await stack.startMock()
            // Plain, then keyed: a migrated kiosk with an open respondent under the key.
            try await stack.startDaemon()
            #expect(await stack.daemon?.stop() == 0)
            let key = stack.dir.path + "/key"
            try Self.writeKey(key, fill: 9)
            try await stack.startDaemon(["--encryption-key-file", key])
            let mine = try await stack.json(["start", "--lang", "en"])
            let mineID = try #require(mine["id"] as? String, "\(mine)")
            try await stack.answer([["Ownhollow"]])
            #expect(await stack.daemon?.stop() == 0)
            stack.daemon = nil

            for journal in ["sessions", "queue"] { try? FileManager.default.removeItem(atPath: stack.state + "/\(journal)/plain-segments") }
            try foreignBytes.write(to: URL(fileURLWithPath: stack.state + "/sessions/segment-0000000000000000.log"))
            try await stack.startDaemon(["--encryption-key-file", key])
            let taken = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/v1/sessions/\(foreignID)")
            #expect(taken.status == 404, "another kiosk's respondent was taken in: \(taken.bodyText)")
            let own = try await Self.session(stack, mineID)
            #expect(own["current"] as? Int == 2, "the kiosk's own encrypted records are read: \(own)")
            let encryption = try #require(try await stack.status()["encryption"] as? [String: Any])
            let setAside = encryption["setAsideSegments"] as? [String] ?? []
            #expect(setAside.contains("sessions/segment-0000000000000000.log.unlisted"), "\(encryption)")
            let text = try await stack.ctl(["status"])
            #expect(text.stdout.contains("set aside unread"), "\(text.stdout)")
            let metrics = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/metrics")
            #expect(metrics.bodyText.contains("surveyd_journal_segments_set_aside \(setAside.count)"), "\(metrics.bodyText)")
            #expect((stack.daemon?.errorOutput ?? "").contains("the list was removed by something else"), "logged")
        }
    }
}

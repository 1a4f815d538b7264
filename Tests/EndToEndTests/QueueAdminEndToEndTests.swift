import Foundation
import SurveyTesting
import Testing

/// The queue for an operator, with the built binaries: a submission waiting on one kiosk is
/// listed, shown (its answers only when asked), exported, imported into another daemon's queue
/// (once: the same key again is refused) and delivered once from there.
@Suite(.serialized, .timeLimit(.minutes(10))) struct QueueAdminEndToEndTests {
    @Test func exportFromOneKioskImportIntoAnotherDeliveredOnce() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon()
        try await stack.startAndAnswerAllButLast()
        await stack.stopMock()
        let last = try await stack.json(["answer"] + Stack.common.last!)
        #expect(stack.outcome(last) == "queued", "\(last)")

        let list = try await stack.json(["queue", "list"])
        let pending = try #require(list["pending"] as? [[String: Any]])
        #expect(pending.count == 1 && pending.first?["stage"] as? String == "common", "\(list)")
        let id = try #require(pending.first?["id"] as? String)
        let shown = try await stack.ctl(["queue", "show", id])
        #expect(shown.status == 0 && !shown.stdout.contains("Kim Minsu"), "answers only when asked: \(shown.stdout)")
        let withAnswers = try await stack.ctl(["queue", "show", id, "--answers"])
        #expect(withAnswers.stdout.contains("Kim Minsu"), "\(withAnswers.stdout)")

        let export = try await stack.ctl(["queue", "export", "--pending"])
        #expect(export.status == 0, "\(export.stderr)")
        let lines = export.stdout.split(separator: "\n")
        try #require(lines.count == 1, "one pending submission exported: \(export.stdout)")
        let exported = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let key = try #require(exported["idempotencyKey"] as? String)
        let file = stack.dir.path + "/pending.ndjson"
        try export.stdout.write(toFile: file, atomically: true, encoding: .utf8)

        // The old kiosk is retired; another machine takes its queue.
        await stack.daemon?.stop()
        stack.daemon = nil
        let otherSocket = stack.dir.path + "/other.sock"
        let other = try await stack.startDaemon(socket: otherSocket, state: stack.dir.path + "/other-state")
        _ = try await other.waitForLine(containing: "surveyd ready", onStandardError: true)
        let ctl = { (arguments: [String]) in try await runProcess(stack.ctlBinary, arguments + ["--socket", otherSocket], deadline: .seconds(30)) }
        let imported = try await ctl(["queue", "import", file])
        #expect(imported.status == 0 && imported.stdout.contains("1 imported, 0 refused"), "\(imported.stdout) \(imported.stderr)")
        let again = try await ctl(["queue", "import", file])
        #expect(again.status == 65 && again.stderr.contains("line 1: refused"), "\(again.stdout) \(again.stderr)")

        try await stack.startMock()
        let flushed = try await ctl(["flush", "--wait", "--timeout", "30"])
        #expect(flushed.status == 0, "\(flushed.stdout) \(flushed.stderr)")
        let records = try stack.records()
        #expect(records.count == 1)
        #expect(records.first?["idempotencyKey"] as? String == key)
        await stack.finish()
    }
}

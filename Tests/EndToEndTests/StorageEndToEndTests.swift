#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// The state directory under real conditions, with the built binaries: a file system that fills
/// up, a damaged session journal, file modes loosened by hand.
@Suite(.serialized, .timeLimit(.minutes(10))) struct StorageEndToEndTests {
    /// The state directory on a 2 MiB tmpfs, filled to ENOSPC while a session is open: nothing
    /// is acknowledged that is not durable, status shows the failure (and surveyctl status exits
    /// 74), answering resumes by itself once space is freed, and nothing acknowledged is lost,
    /// also after a restart. Needs the right to mount (root), and is skipped where mounting is
    /// refused.
    @Test(.enabled(if: Tmpfs.canMount, "mounting a tmpfs is refused here: it needs root and the right to mount"))
    func aFullStateDirectoryRefusesAnswersUntilSpaceIsFreed() async throws {
        let stack = try Stack()
        try FileManager.default.createDirectory(atPath: stack.state, withIntermediateDirectories: true)
        do {
            try Tmpfs.mount(size: "2m", at: stack.state)
        } catch {
            await stack.finish()
            throw error
        }
        // Unmounted in any case; normally below, after the daemon stopped.
        defer { umount2(stack.state, Int32(MNT_DETACH)) }
        try await stack.startMock()
        try await stack.startDaemon()
        let first = try await stack.json(["start", "--lang", "en"])
        let id = try #require(first["id"] as? String)
        for value in Stack.common.prefix(2) {
            let result = try await stack.ctl(["answer", "--session", id] + value)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        }

        // Fill the file system. Records may still fit in the last page of the session segment:
        // start sessions (each one acknowledged, so each must survive) until one is refused.
        let filler = stack.state + "/filler"
        try Self.fill(filler)
        var started = [id]
        var refusal: ProcessResult?
        for _ in 0..<60 where refusal == nil {
            let result = try await stack.ctl(["start", "--lang", "en", "--json"])
            if result.status == 0, let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], let other = object["id"] as? String {
                started.append(other)
            } else {
                refusal = result
            }
        }
        let refused = try #require(refusal, "a full file system must refuse a session start")
        #expect(refused.status == 75, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("could not be saved durably") && refused.stderr.contains("ENOSPC"), "\(refused.stderr)")
        let answer = try await stack.ctl(["answer", "--session", id] + Stack.common[2])
        #expect(answer.status == 75, "nothing is acknowledged without durability: \(answer.stdout) \(answer.stderr)")

        let text = try await stack.ctl(["status"])
        #expect(text.status == 74, "\(text.stdout) \(text.stderr)")
        #expect(text.stdout.contains("journal: FAILED") && text.stdout.contains("sessions: write failed with ENOSPC"), "\(text.stdout)")
        let status = try await stack.status()
        let sessionsJournal = try #require((status["journals"] as? [[String: Any]])?.first { $0["name"] as? String == "sessions" }, "\(status)")
        #expect(sessionsJournal["state"] as? String == "failed" && sessionsJournal["cause"] as? String == "ENOSPC", "\(sessionsJournal)")
        #expect(sessionsJournal["since"] is String)
        let health = try await stack.ctl(["health"])
        #expect(health.status == 74, "\(health.stdout) \(health.stderr)")
        #expect(health.stdout.contains("not ready") && health.stdout.contains("journal_failed: the sessions journal cannot write (write ENOSPC"), "\(health.stdout)")

        // Space comes back: the daemon finds out by itself, no restart, no request needed.
        unlink(filler)
        let recovered = try await stack.waitFor("the journal to recover once space was freed") { try await stack.ctl(["status"]).status == 0 }
        #expect(recovered, "the journal did not recover once space was freed")
        let healthy = try await stack.ctl(["health"])
        #expect(healthy.status == 0 && healthy.stdout == "ready\n", "\(healthy.stdout) \(healthy.stderr)")
        let again = try await stack.ctl(["answer", "--session", id] + Stack.common[2])
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")

        // Nothing acknowledged is lost across a restart.
        #expect(await stack.daemon?.stop() == 0)
        try await stack.startDaemon()
        let restarted = try await stack.status()
        let open = try #require(restarted["sessions"] as? [[String: Any]])
        #expect(Set(open.compactMap { $0["id"] as? String }) == Set(started), "\(open)")
        #expect(open.first { $0["id"] as? String == id }?["current"] as? Int == 4, "\(open)")
        #expect(try await stack.ctl(["status"]).status == 0)
        for value in Stack.common.suffix(2) {
            let result = try await stack.ctl(["answer", "--session", id] + value)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        }
        let records = try stack.records()
        #expect(records.count == 1)
        let answers = try #require(records.first?["answers"] as? [String: Any])
        #expect(answers["name"] as? String == "Kim Minsu" && answers["emailConfirm"] as? String == "kim@example.com", "\(answers)")
        await stack.daemon?.stop()
        stack.daemon = nil
        umount2(stack.state, Int32(MNT_DETACH))
        await stack.finish()
    }

    /// One record of a session is lost (its bytes zeroed) while a later one survives: start-up
    /// reports the damaged segment and goes on from before the hole; what is answered after
    /// that survives the next restart, and the stage is delivered once.
    @Test func aHoleInTheSessionJournalCostsNothingAtLaterRestarts() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon()
        _ = try await stack.ctl(["start", "--lang", "en"])
        try await stack.answer(Array(Stack.common.prefix(3)))
        #expect(await stack.daemon?.stop() == 0)
        // Records: 1 stageStarted, 2..4 the answers. Zero the second answer's record.
        let sessions = stack.state + "/sessions"
        let segment = sessions + "/" + (try #require(try FileManager.default.contentsOfDirectory(atPath: sessions).filter { $0.hasSuffix(".log") }.sorted().last))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: segment)))
        let frames = Self.frames(bytes)
        let hole = try #require(frames.first { $0.sequence == 3 }, "\(frames)")
        bytes.replaceSubrange(hole.range, with: [UInt8](repeating: 0, count: hole.range.count))
        try Data(bytes).write(to: URL(fileURLWithPath: segment))

        try await stack.startDaemon()
        var status = try await stack.status()
        let problems = status["journalProblems"] as? [String] ?? []
        #expect(problems.contains { $0.contains("corruptSegment") }, "\(problems)")
        var session = try #require((status["sessions"] as? [[String: Any]])?.first)
        #expect(session["stage"] as? String == "common" && session["current"] as? Int == 2, "\(session)")
        try await stack.answer(Array(Stack.common.dropFirst()))
        #expect(try stack.records().count == 1)

        #expect(await stack.daemon?.stop() == 0)
        try await stack.startDaemon()
        status = try await stack.status()
        session = try #require((status["sessions"] as? [[String: Any]])?.first, "\(status)")
        // The mock names stage 1 after common: the session is there, not back at common.
        #expect(session["stage"] as? String == "1" && session["current"] as? Int == 1, "\(session)")
        try await stack.answer(Stack.stage1)
        #expect(try stack.records().map { $0["typeID"] as? String } == ["common", "1"], "common delivered once")
        #expect(FileManager.default.fileExists(atPath: segment + ".corrupt"), "the damaged bytes stay for the operator")
        await stack.finish()
    }

    /// Files and directories of the state directory loosened by hand are owner-only again after
    /// a restart.
    @Test func loosenedModesAreRestoredAtStart() async throws {
        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon()
        _ = try await stack.ctl(["start", "--lang", "en"])
        try await stack.answer([Stack.common[0]])
        #expect(await stack.daemon?.stop() == 0)
        let paths = [stack.state] + (try FileManager.default.subpathsOfDirectory(atPath: stack.state)).map { stack.state + "/" + $0 }
        #expect(paths.contains { $0.hasSuffix(".log") } && paths.contains { $0.contains("/by-hash/") })
        for path in paths { chmod(path, Self.isDirectory(path) ? 0o755 : 0o644) }
        try await stack.startDaemon()
        try await stack.answer([Stack.common[1]])
        #expect(await stack.daemon?.stop() == 0)
        for path in [stack.state] + (try FileManager.default.subpathsOfDirectory(atPath: stack.state)).map({ stack.state + "/" + $0 }) {
            let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
            #expect(mode == (Self.isDirectory(path) ? 0o700 : 0o600), "\(path): \(String(mode, radix: 8))")
        }
        await stack.finish()
    }

    static func isDirectory(_ path: String) -> Bool {
        var flag: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &flag) && flag.boolValue
    }

    /// The frames of a segment (doc/journal-format.md): sequence number and byte range.
    static func frames(_ bytes: [UInt8]) -> [(sequence: UInt64, range: Range<Int>)] {
        func integer(_ at: Int, _ size: Int) -> UInt64 { (0..<size).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
        var out: [(UInt64, Range<Int>)] = []
        var offset = 0
        while offset + 21 <= bytes.count, integer(offset, 4) == 0x3153_5653 {
            let end = offset + 21 + Int(integer(offset + 4, 4))
            guard end <= bytes.count else { break }
            out.append((integer(offset + 13, 8), offset..<end))
            offset = end
        }
        return out
    }

    /// Writes to `path` until the file system is full.
    static func fill(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0xAB, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }
}

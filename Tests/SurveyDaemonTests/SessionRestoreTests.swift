import ControlAPI
import Entities
import Foundation
import Logging
import Storage
import SurveyTesting
import Synchronization
import Testing
@testable import SurveyDaemon

/// Restores over a real session journal on disk, damaged between runs.
@Suite(.timeLimit(.minutes(5))) struct SessionRestoreTests {
    let dir: TemporaryDirectory
    let queue = RecordingQueue()
    let logger = Logger(label: "restore-tests")

    init() throws { dir = try TemporaryDirectory(prefix: "sr") }

    /// A manager over the journal in `dir`, restored; `body` runs with it, then the journal closes.
    func withManager<T>(_ body: (SessionManager) async throws -> T) async throws -> T {
        let journal = try Journal(directory: dir.path, logger: logger)
        defer { journal.close(then: {}) }  // when it throws
        let manager = SessionManager(
            journal: StoredSessionJournal(journal: journal), definitions: FixtureDefinitions(offline: false), queue: queue,
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .seconds(5)), logger: logger)
        // Every stage is delivered at once, and the server names no further stage.
        let queue = queue
        queue.onEnqueue.withLock {
            $0 = { submission in
                queue.states.withLock { $0[submission.idempotencyKey] = .delivered(response: nil) }
                Task { await manager.deliveryFinished(key: submission.idempotencyKey, state: .delivered(response: nil)) }
            }
        }
        try await manager.restore()
        let result = try await body(manager)
        await journal.close()
        return result
    }

    /// Where each record lies in the journal, by sequence number.
    func locations() async throws -> [UInt64: JournalLocation] {
        var found: [UInt64: JournalLocation] = [:]
        let journal = try Journal(directory: dir.path, logger: logger) { record, location in found[record.sequence] = location }
        await journal.close()
        return found
    }

    /// One record of a session is lost (zeroed) while a later one of the same session survives:
    /// the session goes on from before the hole, and what it is answered after that survives the
    /// next restart, delivered once.
    @Test func aHoleInASessionsJournalIsSettledOnceAndLaterAnswersSurviveRestarts() async throws {
        defer { dir.remove() }
        let common = [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"], ["30"], ["5"]]
        let id = try await withManager { m in
            let started = try await m.start(StartSessionRequest())
            for words in common.prefix(3) { #expect(try await m.answer(AnswerRequest(values: words)).accepted) }
            return started.id
        }
        // Records: 1 stageStarted, 2..4 the three answers. Zero the second answer's record.
        let at = try await locations()
        let segment = dir.path + "/" + (try #require(at[3]?.segment))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: segment)))
        let start = try #require(at[3]?.offset), end = try #require(at[4]?.offset)
        bytes.replaceSubrange(start..<end, with: [UInt8](repeating: 0, count: end - start))
        try Data(bytes).write(to: URL(fileURLWithPath: segment))

        try await withManager { m in
            let problems = await m.restoreProblems
            #expect(problems.contains { $0.contains("answer for \"emailConfirm\"") }, "\(problems)")
            let view = try await m.view(id: id)
            #expect(view.current == 2 && view.question?.name == "email", "the session goes on from before the hole")
            for words in common.dropFirst() { #expect(try await m.answer(AnswerRequest(values: words)).accepted) }
            #expect(try await m.view(id: id).outcome == "thanks")
        }
        #expect(queue.submissions.withLock { $0.count } == 1)
        #expect(FileManager.default.fileExists(atPath: segment + ".corrupt"), "the damaged bytes stay quarantined")

        // The next restart builds on the settled state: the session is over, nothing is asked
        // or delivered again.
        try await withManager { m in
            let view = try await m.view(id: id)
            #expect(view.outcome == "thanks", "\(view)")
            #expect(await m.openSessions().isEmpty)
            let problems = await m.restoreProblems
            #expect(problems.isEmpty, "\(problems)")
        }
        #expect(queue.submissions.withLock { $0.count } == 1, "delivered once")
        #expect(FileManager.default.fileExists(atPath: segment + ".corrupt"))
    }

    /// A journal in memory with a hole: the second answer's event is missing.
    func journalWithAHole() async throws -> (MemoryJournal, String) {
        let memory = MemoryJournal()
        let m = SessionManager(
            journal: memory, definitions: FixtureDefinitions(offline: false), queue: queue,
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .seconds(5)), logger: logger)
        let started = try await m.start(StartSessionRequest())
        for words in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"]] { _ = try await m.answer(AnswerRequest(values: words)) }
        memory.events.withLock { $0.remove(at: 2) }
        return (memory, started.id)
    }

    @Test func theSettledStateIsWhatTheJournalHoldsAfterTheRestore() async throws {
        defer { dir.remove() }
        let (memory, id) = try await journalWithAHole()
        let m = SessionManager(
            journal: memory, definitions: FixtureDefinitions(offline: false), queue: queue,
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .seconds(5)), logger: logger)
        try await m.restore()
        #expect(try await m.view(id: id).question?.name == "email")
        // Only the events the session was rebuilt from: the start and the first answer.
        let events = memory.events.withLock { $0 }
        #expect(events.count == 2, "\(events)")
        if case .answerAccepted(_, "name", _) = events.last {} else { Issue.record("\(events)") }
        let problems = await m.restoreProblems
        #expect(problems.contains { $0.contains("goes on from stage common, question 2") && $0.contains("the 1 event journaled after") }, "\(problems)")
    }

    @Test func aSessionWhoseSettledStateCannotBeWrittenIsNotContinued() async throws {
        defer { dir.remove() }
        let (memory, id) = try await journalWithAHole()
        memory.failing.withLock { $0 = true }
        let m = SessionManager(
            journal: memory, definitions: FixtureDefinitions(offline: false), queue: queue,
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .seconds(5)), logger: logger)
        try await m.restore()
        await #expect(throws: SessionError.self) { try await m.view(id: id) }
        let problems = await m.restoreProblems
        #expect(problems.contains { $0.contains("cannot be continued now") && $0.contains("tries again at its next start") }, "\(problems)")
        // Nothing was thrown away: the next start, with a journal that writes, settles it.
        memory.failing.withLock { $0 = false }
        #expect(memory.events.withLock { $0.count } == 3)
        let again = SessionManager(
            journal: memory, definitions: FixtureDefinitions(offline: false), queue: queue,
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .seconds(5)), logger: logger)
        try await again.restore()
        #expect(try await again.view(id: id).question?.name == "email")
    }
}

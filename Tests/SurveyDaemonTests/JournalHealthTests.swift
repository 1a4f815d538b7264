#if canImport(Glibc)
import Glibc
#endif
import ControlAPI
import Foundation
import HTTPTypes
import Logging
import Storage
import SurveyTesting
import Synchronization
import Testing
@testable import SurveyDaemon

/// The daemon's view of its journals: a session journal that cannot write refuses answers with
/// `journal_unavailable`, status names the journal, the cause and since when, and answering
/// resumes by itself once writes succeed.
@Suite(.timeLimit(.minutes(5))) struct JournalHealthTests {
    /// Writes fail with `ENOSPC` while set.
    final class Full: Sendable {
        let on = Mutex(false)
        var options: JournalOptions {
            var o = JournalOptions()
            o.retryInterval = .milliseconds(20)
            o.fileOperations.write = { [self] fd, buffer in
                if on.withLock({ $0 }) { errno = ENOSPC; return -1 }
                return Glibc.write(fd, buffer.baseAddress, buffer.count)
            }
            return o
        }
    }

    @Test func aFullSessionJournalRefusesAnswersShowsInStatusAndRecoversByItself() async throws {
        let dir = try TemporaryDirectory(prefix: "jh")
        defer { dir.remove() }
        let full = Full()
        let logger = Logger(label: "journal-health")
        let sessionJournal = try Journal(directory: dir.path + "/sessions", options: full.options, logger: logger)
        defer { sessionJournal.close(then: {}) }
        var queueOptions = SubmissionQueueOptions()
        queueOptions.journal = full.options
        let submissionQueue = try SubmissionQueue(directory: dir.path + "/queue", options: queueOptions, logger: logger)
        defer { submissionQueue.close(then: {}) }
        let queue = StoredSubmissionQueue(queue: submissionQueue, wakeup: DeliveryWakeup(), otherJournals: [("sessions", sessionJournal)])
        let manager = SessionManager(
            journal: StoredSessionJournal(journal: sessionJournal), definitions: FixtureDefinitions(offline: false), queue: queue,
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .milliseconds(10)), logger: logger)
        _ = try await manager.start(StartSessionRequest())
        #expect(try await manager.answer(AnswerRequest(values: ["Kim"])).accepted)
        #expect(await queue.journalHealth().map(\.state) == ["ok", "ok"])

        full.on.withLock { $0 = true }
        do throws(SessionError) {
            _ = try await manager.answer(AnswerRequest(values: ["kim.cs@gmail.com"]))
            Issue.record("an answer was acknowledged while the journal cannot write")
        } catch {
            #expect(error.code == .journalUnavailable && ControlError(error).status == 503 && ControlError(error).code == "journal_unavailable")
            #expect(error.message.contains("ENOSPC"), "\(error.message)")
        }
        let health = await queue.journalHealth()
        let sessions = try #require(health.first)
        #expect(sessions.name == "sessions" && sessions.state == "failed" && sessions.call == "write" && sessions.cause == "ENOSPC")
        #expect(sessions.since != nil && sessions.causeText == String(cString: strerror(ENOSPC)))
        #expect(health.last?.name == "queue")

        full.on.withLock { $0 = false }
        #expect(await eventually(every: .milliseconds(10)) { await !queue.journalHealth().contains(where: { $0.state != "ok" }) })
        #expect(await queue.journalHealth().map(\.state) == ["ok", "ok"])
        let reply = try await manager.answer(AnswerRequest(values: ["kim.cs@gmail.com"]))
        #expect(reply.accepted && reply.session.question?.name == "emailConfirm")
    }
}

import ControlAPI
import Foundation
import Logging
@testable import SurveyDaemon
import Synchronization
import Testing

/// Nothing a respondent types reaches the log, at any level: the session manager, the queue, the
/// journals and the erasure log through the daemon's handler at debug level while respondents
/// answer, are refused, go back, finish, are delivered, abandoned, erased and restored.
@Suite(.timeLimit(.minutes(5))) struct ErasureLogTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }

    @Test func theDebugLogHoldsNoAnswer() async throws {
        let lines = Lines()
        let logger = Logger(label: "surveyd") { label in
            DaemonLogHandler(label: label, journal: false, level: DaemonLogLevel(.debug), metadataProvider: nil) { line in lines.lines.withLock { $0.append(line) } }
        }
        let fixture = try ErasureFixture(logger: logger)
        defer { fixture.finish() }
        let words = ["Hollyhockzed", "hollyhock.zed@example.com", "Ibisquarrel", "ibis.quarrel@example.com", "Jackdawplume", "Oolongpuffin"]
        let delivered = try await fixture.respondent("Hollyhockzed", "hollyhock.zed@example.com")
        // Refused answers quote what was typed back to the respondent: not into the log.
        #expect(try await fixture.manager.answer(AnswerRequest(session: delivered, values: ["Oolongpuffin"])).accepted == false)
        #expect(try await fixture.complete(delivered).session.outcome == "queued")
        try await fixture.deliverAll()
        let abandoned = try await fixture.respondent("Ibisquarrel", "ibis.quarrel@example.com")
        _ = try await fixture.manager.back(session: abandoned)
        try await fixture.manager.abandon(session: abandoned)
        _ = try await fixture.respondent("Jackdawplume", "jackdaw.plume@example.com", answers: 1)
        _ = try await fixture.erasure.erase(all: true)
        try await fixture.restart(logger: logger)
        let log = lines.all
        #expect(log.contains { $0.contains("answers erased") }, "the log was captured at debug level: \(log)")
        for word in words {
            #expect(!log.contains { $0.contains(word) }, "\(word) is in the log: \(log.filter { $0.contains(word) })")
        }
    }
}

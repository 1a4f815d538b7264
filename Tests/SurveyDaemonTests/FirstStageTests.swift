import ControlAPI
import Foundation
import Logging
import SurveyDaemon
import Synchronization
import Testing

/// Log lines kept in memory, for tests that check what the operator is told.
final class CapturedLog: Sendable {
    let lines = Mutex<[(level: Logger.Level, message: String)]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    func contains(_ level: Logger.Level, _ text: String) -> Bool {
        lines.withLock { $0.contains { $0.level == level && $0.message.contains(text) } }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
            log.lines.withLock { $0.append((level, message.description)) }
        }
    }
}

/// The project's stages only: any other is one the survey server does not have.
struct KnownStages: DefinitionSource {
    let fixtures = FixtureDefinitions(offline: false)

    func definition(stage: String, language: String) async throws -> LoadedDefinition {
        guard ["common", "1", "2"].contains(stage) else {
            throw DefinitionSourceError(.noSuchStage, "the survey server has no questionnaire for stage \(stage) (\(language)): 404")
        }
        return try fixtures.load(stage: stage, language: language)
    }

    func cachedDefinition(hash: String, stage: String) async throws -> LoadedDefinition? {
        try await fixtures.cachedDefinition(hash: hash, stage: stage)
    }
}

/// `firstStage`: where a session starts when its start names no stage, and what the operator is
/// told when the survey server does not have it.
@Suite(.timeLimit(.minutes(5))) struct FirstStageTests {
    let log = CapturedLog()

    func manager(firstStage: String) -> SessionManager {
        SessionManager(
            journal: MemoryJournal(), definitions: KnownStages(), queue: RecordingQueue(),
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .milliseconds(50), firstStage: firstStage),
            logger: log.logger)
    }

    @Test func aStartThatNamesNoStageStartsAtTheFirstStage() async throws {
        #expect(SessionManager.Settings(defaultLanguage: "ko", idleTimeout: .seconds(1), deliveryWait: .seconds(1)).firstStage == "common")
        let manager = manager(firstStage: "2")
        #expect(try await manager.start(stage: nil, language: nil).stage == "2")
        #expect(try await manager.start(stage: "common", language: nil).stage == "common")
        #expect(await manager.firstStageMissing == nil)
    }

    @Test func aFirstStageTheServerDoesNotHaveIsNamedInTheErrorTheStatusAndTheLog() async throws {
        let manager = manager(firstStage: "spring")
        await #expect {
            _ = try await manager.start(stage: nil, language: "ko")
        } throws: { error in
            let error = error as? SessionError
            return error?.code == .noSuchStage
                && error?.message == "the survey server has no questionnaire for the first stage spring (ko), so sessions that name no stage cannot start; set firstStage to a stage the server has, or ask the survey's owner to publish spring"
        }
        let missing = try #require(await manager.firstStageMissing)
        #expect(missing.stage == "spring" && missing.language == "ko")
        #expect(log.contains(.error, "the survey server has no questionnaire for the first stage spring (ko)"))
        // A start that names a stage the server has is not affected, and leaves the note.
        #expect(try await manager.start(stage: "common", language: "en").stage == "common")
        #expect(await manager.firstStageMissing == missing)
        // A start naming a missing stage itself is the caller's mistake, not the setting's.
        await #expect(throws: SessionError.self) { _ = try await manager.start(stage: "autumn", language: "en") }
        #expect(await manager.firstStageMissing?.stage == "spring")
    }

    @Test func statusShowsTheMissingFirstStage() throws {
        var view = StatusView(
            version: "1", startedAt: "2026-11-26T08:00:00Z", uptimeSeconds: 1, connectivity: .init(state: "online", since: nil),
            queue: .init(pending: 0, inFlight: 0, dead: 0, delivered: 0, oldestPendingAgeSeconds: nil, lastDeliveryAt: nil, nextRetryAt: nil), journalProblems: [], sessions: [])
        #expect(!Rendering.status(view).joined(separator: "\n").contains("first stage"))
        view.firstStageMissing = .init(stage: "spring", lang: "ko", since: "2026-11-26T08:01:00Z")
        let lines = Rendering.status(view)
        #expect(lines.contains("first stage: MISSING: the survey server has no questionnaire for stage spring (ko) since 2026-11-26T08:01:00Z; sessions that name no stage (the kiosk's, surveyctl start without --type) cannot start: set firstStage to a stage the server has, or ask the survey's owner to publish it"), "\(lines)")
        let decoded = try JSONDecoder().decode(StatusView.self, from: try JSONEncoder().encode(view))
        #expect(decoded.firstStageMissing == view.firstStageMissing)
    }
}

import ControlAPI
import Foundation
import Logging
import SurveyDaemon
import Testing

/// Sessions keep the fraction of a second of their durations.
@Suite struct DurationFractionTests {
    /// An idle timeout of 1.5 s is 1.5 s, not 1 s.
    @Test func anIdleTimeoutKeepsItsFraction() async throws {
        let dates = TestClock()
        let sessions = SessionManager(
            journal: MemoryJournal(), definitions: FixtureDefinitions(offline: false), queue: RecordingQueue(),
            settings: .init(defaultLanguage: "en", idleTimeout: .milliseconds(1500), deliveryWait: .milliseconds(1)),
            now: { dates.now() }, logger: Logger(label: "test"))
        _ = try await sessions.start(StartSessionRequest())
        dates.advance(1.2)
        #expect(await sessions.closeIdleSessions() == 0, "idle 1.2 s of 1.5 s")
        dates.advance(0.5)
        #expect(await sessions.closeIdleSessions() == 1)
    }

    /// A retention of 1.5 s keeps a session closed 1.2 s ago.
    @Test func aRetentionKeepsItsFraction() async throws {
        let dates = TestClock()
        let sessions = SessionManager(
            journal: MemoryJournal(), definitions: FixtureDefinitions(offline: false), queue: RecordingQueue(),
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(60), deliveryWait: .milliseconds(1)),
            now: { dates.now() }, logger: Logger(label: "test"))
        _ = try await sessions.start(StartSessionRequest())
        dates.advance(61)
        #expect(await sessions.closeIdleSessions() == 1)
        dates.advance(1.2)
        #expect(try await sessions.compactJournal(retention: .milliseconds(1500)).retired == 0, "closed 1.2 s ago, kept 1.5 s")
        dates.advance(0.5)
        #expect(try await sessions.compactJournal(retention: .milliseconds(1500)).retired == 1)
    }
}

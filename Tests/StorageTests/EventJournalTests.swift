import Foundation
import Logging
import Storage
import SurveyTesting
import Testing

/// A stand-in for the daemon's events (issue 5 defines the real ones).
enum TestEvent: Codable, Sendable, Equatable {
    case sessionStarted(id: UUID, stage: String)
    case answerAccepted(session: UUID, question: String, value: String)
    case screenedOut(session: UUID, reason: String)
    case stageCompleted(session: UUID)
}

@Test func eventsReplayInOrderAfterReopen() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let id = UUID()
    let events: [TestEvent] = [
        .sessionStarted(id: id, stage: "common"), .answerAccepted(session: id, question: "q1", value: "yes"),
        .screenedOut(session: id, reason: "age"), .stageCompleted(session: id),
    ]
    let first = try Journal(directory: dir.path, logger: Logger(label: "t"))
    let log = EventJournal<TestEvent>(journal: first)
    for e in events { _ = try await log.append(e) }
    first.close()
    let second = try Journal(directory: dir.path, logger: Logger(label: "t"))
    defer { second.close() }
    let replayed = try EventJournal<TestEvent>(journal: second).replay()
    #expect(replayed.map(\.event) == events)
    #expect(replayed.map(\.sequence) == [1, 2, 3, 4])
}

@Test func undecodableEventIsReportedWithItsSequence() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let first = try Journal(directory: dir.path, logger: Logger(label: "t"))
    _ = try await first.append(type: EventJournal<TestEvent>.recordType, payload: Array("{\"nope\":1}".utf8))
    first.close()
    let second = try Journal(directory: dir.path, logger: Logger(label: "t"))
    defer { second.close() }
    let error = #expect(throws: StorageError.self) { try EventJournal<TestEvent>(journal: second).replay() }
    #expect(error?.code == .undecodableEvent)
    #expect(error?.message.contains("record 1") == true)
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Storage
import SurveyTesting
import Synchronization
import Testing

/// A stand-in for the daemon's events (the daemon defines the real ones).
enum TestEvent: Codable, Sendable, Equatable {
    case sessionStarted(id: UUID, stage: String)
    case answerAccepted(session: UUID, question: String, value: String)
    case screenedOut(session: UUID, reason: String)
    case stageCompleted(session: UUID)
}

@Test(.timeLimit(.minutes(5))) func eventsReplayInOrderAfterReopen() async throws {
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
    await first.close()
    let second = try Journal(directory: dir.path, logger: Logger(label: "t"))
    defer { second.close(then: {}) }
    let replayed = try EventJournal<TestEvent>(journal: second).replay()
    #expect(replayed.map(\.event) == events)
    #expect(replayed.map(\.sequence) == [1, 2, 3, 4])
}

@Test(.timeLimit(.minutes(5))) func undecodableEventIsReportedWithItsSequence() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let first = try Journal(directory: dir.path, logger: Logger(label: "t"))
    _ = try await first.append(type: EventJournal<TestEvent>.recordType, payload: Array("{\"nope\":1}".utf8))
    await first.close()
    let second = try Journal(directory: dir.path, logger: Logger(label: "t"))
    defer { second.close(then: {}) }
    let error = #expect(throws: StorageError.self) { try EventJournal<TestEvent>(journal: second).replay() }
    #expect(error?.code == .undecodableEvent)
    #expect(error?.message.contains("record 1") == true)
}

@Test(.timeLimit(.minutes(5))) func aSnapshotReplacesWhatCameBeforeAndRemovesOldSegments() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let a = UUID(), b = UUID()
    var options = JournalOptions()
    options.segmentSize = 256
    let journal = try Journal(directory: dir.path, options: options, logger: Logger(label: "t"))
    let log = EventJournal<TestEvent>(journal: journal)
    for i in 0..<20 { _ = try await log.append(.answerAccepted(session: a, question: "q\(i)", value: String(repeating: "x", count: 30))) }
    _ = try await log.append(.sessionStarted(id: b, stage: "common"))
    let before = try journal.segments()
    #expect(before.count > 2)
    let kept: [TestEvent] = [.sessionStarted(id: b, stage: "common")]
    let removed = try await log.compact(keeping: kept)
    #expect(removed == before.count, "every segment before the snapshot's is removed")
    _ = try await log.append(.stageCompleted(session: b))
    #expect(try journal.segments().count == 1)
    await journal.close()
    let reopened = try Journal(directory: dir.path, options: options, logger: Logger(label: "t"))
    defer { reopened.close(then: {}) }
    let replayed = try EventJournal<TestEvent>(journal: reopened).replay()
    #expect(replayed.map(\.event) == kept + [.stageCompleted(session: b)])
}

/// In relaxed mode a snapshot is still synced before the segments it replaces are removed.
@Test(.timeLimit(.minutes(5))) func aRelaxedJournalSyncsTheSnapshotBeforeRemovingWhatItReplaces() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let syncs = Mutex(0)
    var options = JournalOptions()
    options.durability = .relaxed(syncInterval: .seconds(3600))
    options.fileOperations = JournalFileOperations(fdatasync: { fd in syncs.withLock { $0 += 1 }; return Glibc.fdatasync(fd) })
    let journal = try Journal(directory: dir.path, options: options, logger: Logger(label: "t"))
    defer { journal.close(then: {}) }
    let log = EventJournal<TestEvent>(journal: journal)
    _ = try await log.append(.sessionStarted(id: UUID(), stage: "common"))
    let before = syncs.withLock { $0 }
    try await log.compact(keeping: [.sessionStarted(id: UUID(), stage: "1")])
    #expect(syncs.withLock { $0 } > before, "the snapshot was acknowledged before it was durable")
}

@Test(.timeLimit(.minutes(5))) func replayStartsAtTheSnapshotEvenWhenOldSegmentsSurviveACrash() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let a = UUID()
    let journal = try Journal(directory: dir.path, logger: Logger(label: "t"))
    let log = EventJournal<TestEvent>(journal: journal)
    _ = try await log.append(.sessionStarted(id: a, stage: "common"))
    _ = try await log.append(.answerAccepted(session: a, question: "q", value: "1"))
    let old = try journal.segments().map(\.name)
    var copies: [String: Data] = [:]
    for name in old { copies[name] = try Data(contentsOf: dir.appending(name)) }
    try await log.compact(keeping: [.sessionStarted(id: a, stage: "1")])
    _ = try await log.append(.stageCompleted(session: a))
    await journal.close()
    for (name, data) in copies { try data.write(to: dir.appending(name)) }
    let reopened = try Journal(directory: dir.path, logger: Logger(label: "t"))
    defer { reopened.close(then: {}) }
    #expect(reopened.recovered.count == 4, "the old segment is back")
    // Finishing the compaction takes the old segment, and what it held, off the disk.
    #expect(try EventJournal<TestEvent>(journal: reopened).removeSegmentsBeforeSnapshot() == old.count)
    #expect(try reopened.segments().allSatisfy { !old.contains($0.name) })
    #expect(try EventJournal<TestEvent>(journal: reopened).removeSegmentsBeforeSnapshot() == 0, "nothing older is left")
    let replayed = try EventJournal<TestEvent>(journal: reopened).replay()
    #expect(replayed.map(\.event) == [.sessionStarted(id: a, stage: "1"), .stageCompleted(session: a)])
    // Replayed, the records are let go: the journal keeps none of them in memory.
    #expect(reopened.recovered.isEmpty)
    #expect(try EventJournal<TestEvent>(journal: reopened).replay().isEmpty)
}

/// Freed heap memory goes back to the system when asked (the daemon asks once its sessions are
/// restored, the queue once it is replayed).
@Test(.timeLimit(.minutes(2))) func freedHeapMemoryIsGivenBack() {
    // 32 MiB in pieces of 4 KiB, freed: whole pages the allocator keeps unless told.
    var pieces: [[UInt8]] = (0..<8192).map { [UInt8](repeating: UInt8(truncatingIfNeeded: $0), count: 4096) }
    #expect(pieces.count == 8192)
    pieces = []
    #expect(Journal.releaseFreedMemory(), "malloc_trim released nothing")
}

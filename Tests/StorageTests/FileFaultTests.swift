#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Storage
import SurveyTesting
import Synchronization
import Testing

private let logger = Logger(label: "file-faults")

private func options(_ faults: FileFaults, segmentSize: Int = 1 << 20, encrypted: Bool = false) -> JournalOptions {
    var o = JournalOptions()
    if encrypted { o.encryption = Encryption.keys(1) }
    o.fileOperations = faults.operations
    o.retryInterval = .milliseconds(20)
    o.segmentSize = segmentSize
    return o
}

private func payload(_ i: Int) -> [UInt8] { Array("fault-\(i)-".utf8) + [UInt8](repeating: UInt8(i & 0xFF), count: 40) }

private func files(_ dir: String) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir).sorted() }

private func size(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : -1
}

/// Reopens the journal without faults and returns the payloads recovered, expecting consecutive
/// sequence numbers from `first` and no recovery problem.
private func payloadsOnDisk(_ dir: TemporaryDirectory, from first: UInt64 = 1) async throws -> [[UInt8]] {
    let journal = try Journal(directory: dir.path, logger: logger)
    defer { journal.close(then: {}) }  // when it throws
    #expect(journal.recoveryReport.isEmpty, "\(journal.recoveryReport)")
    #expect(journal.recovered.map(\.sequence) == (0..<journal.recovered.count).map { first + UInt64($0) }, "sequence numbers go on without a gap")
    let result = journal.recovered.map(\.payload)
    await journal.close()
    return result
}

/// Writes payloads 1 to 5 into a journal in `dir`, closes it and appends `tail` to its segment
/// (a torn tail, as a crash in the middle of a write leaves it); returns the segment's path.
private func journalWithTornTail(_ dir: TemporaryDirectory, _ tail: [UInt8]) async throws -> String {
    let journal = try Journal(directory: dir.path, logger: logger)
    for i in 1...5 { _ = try await journal.append(type: 1, payload: payload(i)) }
    let segment = dir.path + "/" + (try journal.segments().last!.name)
    await journal.close()
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: segment))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(tail))
    try handle.close()
    return segment
}


/// Faults injected through the file-system seam into every kind of system call the storage makes:
/// each shows that nothing is acknowledged without durability, that the error says what failed,
/// that nothing acknowledged earlier is lost, and that the storage works again once the fault
/// clears.
@Suite(.timeLimit(.minutes(5))) struct FileFaultTests {
    // MARK: The journal

    @Test func anEIOOnTheDirectoryFsyncOfANewSegmentRefusesTheAppendAndTheJournalResumes() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        let journal = try Journal(directory: dir.path, options: options(faults, segmentSize: 200), logger: logger)
        var acknowledged: [[UInt8]] = []
        for i in 1...2 {
            _ = try await journal.append(type: 1, payload: payload(i))
            acknowledged.append(payload(i))
        }
        faults.fail("fsync", .exactly(dir.path), with: EIO)
        // The active segment fills up; the append that needs a new one cannot make it durable.
        let refusal = await appendUntilRefused(journal, 3...10, payload: payload, acknowledged: &acknowledged)
        #expect(refusal?.code == .failedClosed)
        #expect(refusal?.message.contains("fsync failed with EIO") == true, "\(refusal?.message ?? "")")
        #expect(journal.currentFailure?.call == "fsync")
        #expect(try journal.segments().count == 1, "the segment whose entry is not durable was removed again")
        faults.clear()
        try await waitUntilItWritesAgain(journal)
        _ = try await journal.append(type: 1, payload: payload(50))
        acknowledged.append(payload(50))
        #expect(try journal.segments().count == 2)
        await journal.close()
        await #expect(try payloadsOnDisk(dir) == acknowledged)
    }

    @Test func aTornTailIsNotCutWhileItsCopyCannotBeWritten() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let garbage = [UInt8](repeating: 0xEE, count: 300)
        let segment = try await journalWithTornTail(dir, garbage)
        let damaged = size(segment)
        let faults = FileFaults()
        faults.fail("write", .containing(".torn-"), with: ENOSPC)
        let error = #expect(throws: StorageError.self) { try Journal(directory: dir.path, options: options(faults), logger: logger) }
        #expect(error?.code == .ioFailed)
        #expect(error?.message.contains(segment) == true && error?.message.contains("Free space") == true, "\(error?.message ?? "")")
        #expect(size(segment) == damaged, "nothing is cut before its copy is durable")
        faults.clear()
        let reopened = try Journal(directory: dir.path, options: options(faults), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.payload) == (1...5).map(payload))
        let problem = try #require(reopened.recoveryReport.first)
        #expect(problem.kind == .tornTail)
        #expect(try Data(contentsOf: URL(fileURLWithPath: problem.keptAt)) == Data(garbage))
        #expect(try await reopened.append(type: 1, payload: payload(6)) == 6)
    }

    @Test func anEIOOnTheFsyncOfACutSegmentFailsTheOpenAndTheNextOpenRecovers() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let segment = try await journalWithTornTail(dir, [1, 2, 3])
        let faults = FileFaults()
        faults.fail("fsync", .exactly(segment), with: EIO)
        let error = #expect(throws: StorageError.self) { try Journal(directory: dir.path, options: options(faults), logger: logger) }
        #expect(error?.code == .ioFailed)
        #expect(error?.message.contains("Cannot cut the torn tail of \(segment)") == true, "\(error?.message ?? "")")
        faults.clear()
        let reopened = try Journal(directory: dir.path, options: options(faults), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.payload) == (1...5).map(payload))
        #expect(try files(dir.path).contains { $0.contains(".torn-") }, "the cut bytes were kept")
        #expect(try await reopened.append(type: 1, payload: payload(6)) == 6)
    }

    @Test func aFailedRenameOfTheRemovalCheckpointRemovesNothing() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        let journal = try Journal(directory: dir.path, options: options(faults, segmentSize: 256), logger: logger)
        var locations: [JournalLocation] = []
        for i in 1...12 { locations.append(try await journal.appendLocated(type: 1, payload: payload(i))) }
        let sealed = try journal.segments().filter { !$0.isActive }.map(\.name)
        try #require(sealed.count >= 2)
        faults.fail("rename", .containing("checkpoint"), with: EIO)
        let error = #expect(throws: StorageError.self) { try journal.removeSegments(sealed) }
        #expect(error?.code == .ioFailed)
        #expect(error?.message.contains("removal checkpoint in \(dir.path)") == true, "\(error?.message ?? "")")
        #expect((error?.cause as? SystemCallError)?.call == "rename")
        // Nothing was removed, nothing is left behind, every record reads back, appends go on.
        #expect(try journal.segments().map(\.name).filter(sealed.contains) == sealed)
        #expect(try !files(dir.path).contains { $0.hasPrefix("checkpoint") })
        for (i, location) in locations.enumerated() { #expect(try journal.read(at: location).payload == payload(i + 1)) }
        #expect(journal.currentFailure == nil)
        #expect(try await journal.append(type: 1, payload: payload(13)) == 13)
        faults.clear()
        try journal.removeSegments(sealed)
        #expect(try journal.segments().allSatisfy { !sealed.contains($0.name) })
        let kept = locations.filter { !sealed.contains($0.segment) }.map(\.sequence)
        await journal.close()
        await #expect(try payloadsOnDisk(dir, from: kept.first!) == kept.map { payload(Int($0)) } + [payload(13)])
    }

    @Test func aFailedUnlinkLeavesTheCheckpointAndTheNextOpenFinishesTheRemoval() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        let journal = try Journal(directory: dir.path, options: options(faults, segmentSize: 256), logger: logger)
        for i in 1...12 { _ = try await journal.append(type: 1, payload: payload(i)) }
        let sealed = try journal.segments().filter { !$0.isActive }.map(\.name)
        try #require(sealed.count >= 2)
        faults.fail("unlink", .containing("segment-"), with: EIO)
        let error = #expect(throws: StorageError.self) { try journal.removeSegments(sealed) }
        #expect(error?.code == .ioFailed)
        #expect(error?.message.contains("Cannot remove settled segment \(sealed[0])") == true, "\(error?.message ?? "")")
        #expect(try files(dir.path).contains("checkpoint"))
        #expect(try await journal.append(type: 1, payload: payload(13)) == 13)
        await journal.close()
        faults.clear()
        let reopened = try Journal(directory: dir.path, logger: logger)
        defer { reopened.close(then: {}) }
        #expect(try reopened.segments().allSatisfy { !sealed.contains($0.name) })
        #expect(try !files(dir.path).contains("checkpoint"))
        #expect(reopened.recovered.last?.payload == payload(13))
        #expect(try await reopened.append(type: 1, payload: payload(14)) == 14)
    }

    @Test func aFileThatCannotBeMadeOwnerOnlyFailsTheOpenNamingIt() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try Journal(directory: dir.path, logger: logger)
        _ = try await journal.append(type: 1, payload: payload(1))
        let segment = dir.path + "/" + (try journal.segments().last!.name)
        await journal.close()
        chmod(segment, 0o644)
        let faults = FileFaults()
        faults.fail("chmod", .exactly(segment), with: EPERM)
        let error = #expect(throws: StorageError.self) { try Journal(directory: dir.path, options: options(faults), logger: logger) }
        #expect(error?.message.contains("Cannot make \(segment) owner-only") == true, "\(error?.message ?? "")")
        faults.clear()
        let reopened = try Journal(directory: dir.path, options: options(faults), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.payload) == [payload(1)])
    }

    @Test(arguments: [false, true])
    func shortWritesAreContinuedEverywhere(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        faults.writeLimit.withLock { $0 = 7 }
        let journal = try Journal(directory: dir.path + "/journal", options: options(faults, segmentSize: 256, encrypted: encrypted), logger: logger)
        for i in 1...12 { _ = try await journal.append(type: 1, payload: payload(i)) }
        let sealed = try journal.segments().filter { !$0.isActive }.map(\.name)
        try journal.removeSegments([sealed[0]])
        await journal.close()
        let reopened = try Journal(directory: dir.path + "/journal", options: options(FileFaults(), encrypted: encrypted), logger: logger)
        #expect(reopened.recoveryReport.isEmpty)
        #expect(reopened.recovered.last?.payload == payload(12))
        #expect(reopened.recovered.count < 12, "the first segment was removed")
        await reopened.close()
        let cache = try DefinitionCache(directory: dir.path + "/definitions", operations: faults.operations)
        let bytes = Array(#"{"questions":[1,2,3,4,5,6,7,8,9]}"#.utf8)
        try cache.store(typeID: "common", language: "en", bytes: bytes)
        #expect(try DefinitionCache(directory: dir.path + "/definitions").current(typeID: "common", language: "en")?.bytes == bytes)
    }

    // MARK: The submission queue

    @Test(arguments: [false, true])
    func aQueueThatCannotWriteAcknowledgesNothingAndKeepsWhatItHad(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        var o = SubmissionQueueOptions()
        o.journal = options(faults, encrypted: encrypted)
        let metadata = { (i: Int) in SubmissionMetadata(key: UUID(), stage: "common", language: "en", definitionHash: "h", queuedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(i))) }
        var queued: [QueuedSubmission] = []
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: o, logger: logger)
            for i in 0..<3 { queued.append(try await queue.enqueueNew(metadata(i), body: payload(i))) }
            faults.fail("write", with: ENOSPC)
            let refused = await #expect(throws: StorageError.self) { try await queue.enqueue(metadata(9), body: payload(9)) }
            #expect(refused?.code == .failedClosed && refused?.message.contains("ENOSPC") == true)
            await #expect(throws: StorageError.self) { try await queue.markDelivered(queued[0].id, response: nil) }
            #expect(await queue.pending(limit: 10) == queued, "neither the refused enqueue nor the refused delivery changed the queue")
            faults.clear()
            try await waitUntilItWritesAgain(queue.journal)
            queued.append(try await queue.enqueueNew(metadata(3), body: payload(3)))
            await queue.close()
        }
        var reopen = SubmissionQueueOptions()
        reopen.journal.encryption = encrypted ? Encryption.keys(1) : nil
        let queue = try SubmissionQueue(directory: dir.path, options: reopen, logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.pending(limit: 10) == queued)
        for (i, s) in queued.enumerated() { #expect(Array(try await queue.body(of: s.id)) == payload(i)) }
    }

    @Test(arguments: [false, true])
    func aCompactionWhoseRemovalFailsLosesNoSubmission(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        var o = SubmissionQueueOptions()
        o.journal = options(faults, segmentSize: 2048, encrypted: encrypted)
        var kept: [QueuedSubmission] = []
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: o, logger: logger)
            var all: [QueuedSubmission] = []
            for i in 0..<120 {
                all.append(try await queue.enqueueNew(SubmissionMetadata(key: UUID(), stage: "common", language: "en", definitionHash: "h", queuedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(i))), body: payload(i)))
            }
            for (i, s) in all.enumerated() {
                if i % 60 == 5 { kept.append(s) } else { try await queue.markDelivered(s.id, response: nil) }
            }
            faults.fail("rename", .containing("checkpoint"), with: EIO)
            let error = await #expect(throws: StorageError.self) { try await queue.compact() }
            #expect(error?.code == .ioFailed)
            #expect(await queue.pending(limit: 10) == kept)
            for s in kept { #expect(Array(try await queue.body(of: s.id)) == payload(Int(s.id.ordinal) - 1)) }
            faults.clear()
            let report = try await queue.compact()
            #expect(!report.removedSegments.isEmpty)
            #expect(await queue.pending(limit: 10) == kept)
            await queue.close()
        }
        o.journal.fileOperations = JournalFileOperations()
        let queue = try SubmissionQueue(directory: dir.path, options: o, logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.pending(limit: 10) == kept)
        for s in kept { #expect(Array(try await queue.body(of: s.id)) == payload(Int(s.id.ordinal) - 1)) }
    }

    // MARK: The definition cache

    @Test(arguments: zip(["write", "fsync", "rename"], [ENOSPC, EIO, EIO]))
    func aDefinitionThatCannotBeWrittenLeavesTheCachedOneInPlace(call: String, code: Int32) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        let cache = try DefinitionCache(directory: dir.path, operations: faults.operations)
        let first = Array(#"{"version":1}"#.utf8)
        let second = Array(#"{"version":2}"#.utf8)
        try cache.store(typeID: "common", language: "en", bytes: first)
        faults.fail(call, .containing(".tmp-"), with: code)
        let error = #expect(throws: StorageError.self) { try cache.store(typeID: "common", language: "en", bytes: second) }
        #expect(error?.code == .ioFailed)
        #expect(error?.message.contains(dir.path) == true, "\(error?.message ?? "")")
        #expect((error?.cause as? SystemCallError)?.call == call)
        #expect(try cache.current(typeID: "common", language: "en")?.bytes == first)
        for sub in ["by-hash", "current"] { #expect(try !files(dir.path + "/" + sub).contains { $0.contains(".tmp-") }) }
        faults.clear()
        try cache.store(typeID: "common", language: "en", bytes: second)
        #expect(try cache.current(typeID: "common", language: "en")?.bytes == second)
    }

    // MARK: The seam

    @Test func everyKindOfSystemCallGoesThroughTheSeam() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        let journal = try Journal(directory: dir.path + "/journal", options: options(faults, segmentSize: 256), logger: logger)
        var locations: [JournalLocation] = []
        for i in 1...12 { locations.append(try await journal.appendLocated(type: 1, payload: payload(i))) }
        _ = try journal.read(at: locations[0])
        try journal.removeSegments([locations[0].segment])
        await journal.close()
        let seen = faults.calls.withLock { $0 }
        let expected: Set<String> = ["mkdir", "chmod", "lstat", "stat", "open", "fchmod", "flock", "listDirectory", "fstat", "write", "fdatasync", "fsync", "pread", "rename", "unlink", "close", "fallocate", "lseek"]
        #expect(expected.subtracting(seen).isEmpty, "not seen: \(expected.subtracting(seen).sorted())")
    }
}

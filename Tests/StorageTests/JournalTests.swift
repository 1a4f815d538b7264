#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Storage
import SurveyTesting
import Synchronization
import Testing

private let logger = Logger(label: "storage-tests")

private func options(segmentSize: Int = 1 << 20) -> JournalOptions {
    var o = JournalOptions()
    o.segmentSize = segmentSize
    return o
}

private func payload(_ i: Int) -> [UInt8] { Array("record-\(i)-".utf8) + [UInt8](repeating: UInt8(i & 0xFF), count: i % 37) }

private func segments(_ dir: TemporaryDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("segment-") && $0.hasSuffix(".log") }.sorted()
}

@Test(.timeLimit(.minutes(5))) func concurrentAppendsSurviveReopenInOrder() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let journal = try Journal(directory: dir.path, options: options(segmentSize: 2048), logger: logger)
    let seqs = try await withThrowingTaskGroup(of: (UInt64, Int).self) { group in
        for i in 0..<200 { group.addTask { (try await journal.append(type: 1, payload: payload(i)), i) } }
        var out: [UInt64: Int] = [:]
        for try await (s, i) in group { out[s] = i }
        return out
    }
    #expect(seqs.count == 200)
    // Rotation happens between batches (a batch is never split), so add batches one by one.
    var all = seqs
    for i in 200..<300 { all[try await journal.append(type: 1, payload: payload(i))] = i }
    await journal.close()
    #expect(try segments(dir).count > 1, "a 2 KiB segment size must rotate")
    let reopened = try Journal(directory: dir.path, options: options(segmentSize: 2048), logger: logger)
    defer { reopened.close(then: {}) }
    #expect(reopened.recovered.count == 300)
    #expect(reopened.recovered.map(\.sequence) == Array(1...300))
    for r in reopened.recovered { #expect(r.payload == payload(all[r.sequence]!)) }
    #expect(reopened.recoveryReport.isEmpty)
    #expect(try await reopened.append(type: 2, payload: [1]) == 301)
}

@Test(.timeLimit(.minutes(5))) func secondOpenerFailsNamingTheDirectory() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let journal = try Journal(directory: dir.path, logger: logger)
    defer { journal.close(then: {}) }
    let error = #expect(throws: StorageError.self) { try Journal(directory: dir.path, logger: logger) }
    #expect(error?.code == .locked)
    #expect(error?.message.contains(dir.path) == true)
}

/// Writes `count` records in batches, closes, returns the last segment path and the byte offset where the last batch starts.
private func writeBatches(_ dir: TemporaryDirectory) async throws -> (String, Int, Int) {
    let journal = try Journal(directory: dir.path, options: options(), logger: logger)
    for i in 0..<10 { _ = try await journal.append(type: 1, payload: payload(i)) }
    let seg = dir.path + "/" + (try segments(dir).last!)
    // The last batch's frame: where it starts and ends (the open segment is preallocated, so its
    // size says nothing of where the records end; closed, it ends with them).
    let last = try await journal.appendLocated(type: 1, payload: payload(10))
    await journal.close()
    let after = (try FileManager.default.attributesOfItem(atPath: seg)[.size] as! NSNumber).intValue
    #expect(after == last.offset + 21 + payload(10).count)
    return (seg, last.offset, after)
}

@Test(.timeLimit(.minutes(5))) func tornTailAtEveryOffsetOfTheLastBatch() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (seg, start, end) = try await writeBatches(dir)
    let original = try Data(contentsOf: URL(fileURLWithPath: seg))
    for cut in start..<end {
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) where name.contains(".torn-") {
            try FileManager.default.removeItem(atPath: dir.path + "/" + name)
        }
        try original.prefix(cut).write(to: URL(fileURLWithPath: seg))
        let j = try Journal(directory: dir.path, options: options(), logger: logger)
        #expect(j.recovered.count == 10, "cut at \(cut)")
        #expect(j.recovered.map(\.payload) == (0..<10).map(payload))
        if cut > start { #expect(j.recoveryReport.first?.kind == .tornTail) }
        await j.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: seg)).count == start)
    }
}

@Test(.timeLimit(.minutes(5)), arguments: [UInt8(0xFF), 0x53])
func garbageTailIsCutAndKept(fill: UInt8) async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (seg, _, end) = try await writeBatches(dir)
    let h = try FileHandle(forWritingTo: URL(fileURLWithPath: seg))
    try h.seekToEnd()
    try h.write(contentsOf: Data(repeating: fill, count: 300))
    try h.close()
    let j = try Journal(directory: dir.path, options: options(), logger: logger)
    defer { j.close(then: {}) }
    #expect(j.recovered.count == 11)
    let problem = try #require(j.recoveryReport.first)
    #expect(problem.kind == .tornTail && problem.offset == end)
    #expect(try Data(contentsOf: URL(fileURLWithPath: problem.keptAt)) == Data(repeating: fill, count: 300))
    #expect(try await j.append(type: 1, payload: [9]) == 12)
}

/// Zeros after the last record are a preallocated segment's unused tail: the end of the log,
/// not a problem, and nothing is kept of them.
@Test(.timeLimit(.minutes(5))) func aZeroTailIsTheEndOfTheLog() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (seg, _, _) = try await writeBatches(dir)
    let h = try FileHandle(forWritingTo: URL(fileURLWithPath: seg))
    try h.seekToEnd()
    try h.write(contentsOf: Data(repeating: 0, count: 300))
    try h.close()
    let j = try Journal(directory: dir.path, options: options(), logger: logger)
    #expect(j.recovered.count == 11)
    #expect(j.recoveryReport.isEmpty, "\(j.recoveryReport)")
    #expect(try await j.append(type: 1, payload: [9]) == 12)
    await j.close()
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.contains(".torn-") && !$0.contains(".corrupt") })
    let reopened = try Journal(directory: dir.path, options: options(), logger: logger)
    defer { reopened.close(then: {}) }
    #expect(reopened.recovered.map(\.sequence) == Array(1...12))
    #expect(reopened.recovered.last?.payload == [9])
    #expect(reopened.recoveryReport.isEmpty)
}

/// A torn record followed by zeros (a crash in the middle of a write into a preallocated
/// segment) is a torn tail: cut, and its bytes up to the zeros kept.
@Test(.timeLimit(.minutes(5))) func aTornRecordFollowedByZerosIsATornTail() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (seg, start, end) = try await writeBatches(dir)
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: seg)))
    let torn = Array(bytes[start..<(start + (end - start) / 2)])
    bytes = Array(bytes[..<start]) + torn + [UInt8](repeating: 0, count: 4096)
    try Data(bytes).write(to: URL(fileURLWithPath: seg))
    let j = try Journal(directory: dir.path, options: options(), logger: logger)
    defer { j.close(then: {}) }
    #expect(j.recovered.map(\.payload) == (0..<10).map(payload))
    let problem = try #require(j.recoveryReport.first)
    #expect(j.recoveryReport.count == 1 && problem.kind == .tornTail && problem.offset == start)
    // The torn bytes up to the last one that is not zero: the zeros after it carry nothing.
    let kept = torn[...(try #require(torn.lastIndex { $0 != 0 }))]
    #expect(try Data(contentsOf: URL(fileURLWithPath: problem.keptAt)) == Data(kept))
    #expect(try await j.append(type: 1, payload: [9]) == 11)
}

/// The length of a damaged frame whose header is sound says how far the damage goes: a frame
/// found inside it (here one a payload carries) is not taken for a record, and the record after
/// it is.
@Test(.timeLimit(.minutes(5))) func aFrameInsideADamagedRecordIsNotTakenForARecord() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    // A complete, valid frame (sequence 99) inside the payload of record 2.
    let forged: [UInt8] = Array("forged".utf8)
    func littleEndian(_ value: some FixedWidthInteger) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    var body: [UInt8] = [7] + littleEndian(UInt64(99)) + forged
    var inner: [UInt8] = [0x53, 0x56, 0x53, 0x31] + littleEndian(UInt32(forged.count)) + littleEndian(CRC32C.checksum(body))
    inner += body
    body = Array("carrier-".utf8) + inner + Array("-end".utf8)
    let journal = try Journal(directory: dir.path, options: options(), logger: logger)
    let first = try await journal.appendLocated(type: 1, payload: payload(1))
    let carrier = try await journal.appendLocated(type: 1, payload: body)
    _ = try await journal.append(type: 1, payload: payload(3))
    await journal.close()
    let seg = dir.path + "/" + first.segment
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: seg)))
    bytes[carrier.offset + 21 + 2] ^= 0x01  // in "carrier-": record 2 fails its CRC, its header is sound
    try Data(bytes).write(to: URL(fileURLWithPath: seg))
    let j = try Journal(directory: dir.path, options: options(), logger: logger)
    defer { j.close(then: {}) }
    #expect(j.recovered.map(\.sequence) == [1, 3], "\(j.recovered.map(\.sequence))")
    #expect(!j.recovered.contains { $0.payload == forged })
    #expect(j.recoveryReport.map(\.kind) == [.corruptSegment])
    #expect(try await j.append(type: 1, payload: [9]) == 4)
}

@Test(.timeLimit(.minutes(5)), arguments: ["flip", "hugeLength"])
func corruptionInTheMiddleIsReportedAndLaterRecordsKept(kind: String) async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let (seg, _, _) = try await writeBatches(dir)
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: seg)))
    // Record 1 starts at 0; its header is 21 bytes. Damage record 1.
    if kind == "flip" { bytes[25] ^= 0x04 } else { bytes.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0xFF]) }
    try Data(bytes).write(to: URL(fileURLWithPath: seg))
    let j = try Journal(directory: dir.path, options: options(), logger: logger)
    defer { j.close(then: {}) }
    #expect(j.recovered.map(\.sequence) == Array(2...11))
    #expect(j.recovered.map(\.payload) == (1...10).map(payload))
    let problem = try #require(j.recoveryReport.first)
    #expect(problem.kind == .corruptSegment)
    #expect(FileManager.default.fileExists(atPath: problem.keptAt))
}

/// Without and with encryption (every opening then starts a segment under a fresh salt).
@Test(.timeLimit(.minutes(5)), arguments: [false, true])
func sigkillAtRandomMomentsLosesNothingAcknowledged(encrypted: Bool) async throws {
    let kills = Int(ProcessInfo.processInfo.environment["SURVEYD_CRASH_KILLS"] ?? "") ?? 50
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let keyDirectory = try TemporaryDirectory()
    defer { keyDirectory.remove() }
    let keyFile = keyDirectory.path + "/key"
    try Encryption.write((0..<32).map { UInt8($0 * 3) }, to: keyFile)
    chmod(keyFile, 0o600)
    var journalOptions = options()
    if encrypted { journalOptions.encryption = JournalKeys(current: try JournalKey.load(from: keyFile)) }
    var acknowledged: [UInt64: String] = [:]
    for round in 0..<kills {
        let helper = try await BackgroundProcess.start(PackagePaths.executable("JournalCrashHelper"), [dir.path, "4"] + (encrypted ? [keyFile] : []), deadline: .seconds(20))
        // Wait until at least one record is acknowledged, then kill after a random extra moment.
        _ = try? await helper.waitForLine(containing: " ", timeout: .seconds(20))
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...30)))
        let status = await helper.stop(signal: SIGKILL, grace: .seconds(10))
        let text = helper.output
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2, let seq = UInt64(parts[0]) else { continue }  // a partial last line was never printed whole
            #expect(acknowledged[seq] == nil || acknowledged[seq] == String(parts[1]), "sequence \(seq) acknowledged twice with different bytes")
            acknowledged[seq] = String(parts[1])
        }
        #expect(status == 128 + SIGKILL, "round \(round): helper must have been killed, not exited (status \(status))")
    }
    let journal = try Journal(directory: dir.path, options: journalOptions, logger: logger)
    defer { journal.close(then: {}) }
    if encrypted {
        #expect(try journal.segments().allSatisfy { $0.protection == .currentKey || $0.protection == nil })
        #expect(try Encryption.anyFile(under: dir.path, holds: "w1-0-") == nil)
    }
    var seen: [UInt64: Int] = [:]
    for r in journal.recovered { seen[r.sequence, default: 0] += 1 }
    let hex = Dictionary(journal.recovered.map { ($0.sequence, $0.payload.map { String(format: "%02x", $0) }.joined()) }, uniquingKeysWith: { a, _ in a })
    var failures = 0
    for (seq, payloadHex) in acknowledged where seen[seq] != 1 || hex[seq] != payloadHex { failures += 1 }
    #expect(failures == 0)
    #expect(acknowledged.count > 0)
    report("crash test\(encrypted ? " (encrypted)" : ""): \(kills) kills, \(acknowledged.count) acknowledged records verified, \(failures) failures, \(journal.recovered.count) records on disk")
}

// MARK: Disk cap

@Test(.timeLimit(.minutes(5))) func diskCapRefusesAppendsUntilSegmentsAreRemoved() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    var o = options(segmentSize: 512)
    o.diskCap = 2048
    let journal = try Journal(directory: dir.path, options: o, logger: logger)
    var acknowledged: [UInt64] = []
    var refusal: StorageError?
    for i in 0..<100 {
        do {
            acknowledged.append(try await journal.append(type: 1, payload: [UInt8](repeating: UInt8(i), count: 100)))
        } catch let error as StorageError {
            refusal = error
            break
        }
    }
    let error = try #require(refusal, "a 2 KiB cap must be reached by 100 records of 121 bytes")
    #expect(error.code == .journalFull)
    #expect(error.message.contains(dir.path) && error.message.contains("2048"))
    #expect(journal.diskBytes <= 2048)
    #expect(journal.failure == nil, "a full journal is not a failed one")
    let usedWhenFull = journal.diskBytes
    await #expect(throws: StorageError.self) { _ = try await journal.append(type: 1, payload: [UInt8](repeating: 9, count: 100)) }
    #expect(journal.diskBytes == usedWhenFull, "a refused append writes nothing")
    // Removing sealed segments gives the space back.
    let sealed = try journal.segments().filter { !$0.isActive }.map(\.name)
    #expect(!sealed.isEmpty)
    try journal.removeSegments(sealed)
    #expect(journal.diskBytes < usedWhenFull)
    let after = try await journal.append(type: 1, payload: [7])
    #expect(after == acknowledged.last! + 1)
    #expect(journal.diskBytes + journal.preallocatedBytes == segmentBytes(dir) && segmentBytes(dir) <= 2048, "the preallocated tail stays within the cap")
    await journal.close()
    let onDisk = segmentBytes(dir)
    // Every acknowledged record in the remaining segment is intact; nothing refused is there.
    let reopened = try Journal(directory: dir.path, options: o, logger: logger)
    defer { reopened.close(then: {}) }
    #expect(reopened.recovered.last?.sequence == after)
    #expect(reopened.recovered.allSatisfy { $0.sequence <= after })
    #expect(reopened.diskBytes == journal.diskBytes)
    #expect(journal.diskBytes == onDisk, "a closed journal's segments end with their records")
    #expect(reopened.diskBytes + reopened.preallocatedBytes == segmentBytes(dir) && segmentBytes(dir) <= 2048, "the preallocated tail stays within the cap")
}

/// The bytes the segment files of `dir` take.
private func segmentBytes(_ dir: TemporaryDirectory) -> Int {
    ((try? segments(dir)) ?? []).reduce(0) { total, name in
        var st = stat()
        return total + (stat(dir.path + "/" + name, &st) == 0 ? Int(st.st_size) : 0)
    }
}

@Test(.timeLimit(.minutes(5))) func reclaimingAppendsMayGoOverTheCap() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    var o = options()
    o.diskCap = 300
    let journal = try Journal(directory: dir.path, options: o, logger: logger)
    defer { journal.close(then: {}) }
    _ = try await journal.append(type: 1, payload: [UInt8](repeating: 1, count: 200))
    await #expect(throws: StorageError.self) { _ = try await journal.append(type: 1, payload: [UInt8](repeating: 2, count: 200)) }
    let carried = try await journal.appendLocated(type: 1, payload: [UInt8](repeating: 3, count: 200), kind: .marker)
    #expect(carried.sequence == 2)
    #expect(try journal.read(at: carried).payload == [UInt8](repeating: 3, count: 200))
}

// MARK: Durability modes

/// Counts fdatasync calls; fails them while `failing` is set.
private final class SyncCounter: Sendable {
    let calls = Mutex(0)
    let failing = Mutex(false)
    var operations: JournalFileOperations {
        JournalFileOperations(fdatasync: { [self] fd in
            calls.withLock { $0 += 1 }
            if failing.withLock({ $0 }) { errno = EIO; return -1 }
            return Glibc.fdatasync(fd)
        })
    }
}

@Test(.timeLimit(.minutes(5))) func strictModeSyncsBeforeEveryAcknowledgement() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let counter = SyncCounter()
    var o = options()
    o.fileOperations = counter.operations
    let journal = try Journal(directory: dir.path, options: o, logger: logger)
    for i in 0..<20 {
        _ = try await journal.append(type: 1, payload: payload(i))
        #expect(counter.calls.withLock { $0 } == i + 1, "serial append \(i) returned before its fdatasync")
    }
    await journal.close()
}

@Test(.timeLimit(.minutes(5))) func relaxedModeAcknowledgesBeforeSyncAndSyncsOnClose() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let counter = SyncCounter()
    var o = options()
    o.fileOperations = counter.operations
    o.durability = .relaxed(syncInterval: .seconds(3600))
    let journal = try Journal(directory: dir.path, options: o, logger: logger)
    for i in 0..<20 { _ = try await journal.append(type: 1, payload: payload(i)) }
    #expect(counter.calls.withLock { $0 } == 0, "relaxed appends wait for no fdatasync within the interval")
    await journal.close()
    #expect(counter.calls.withLock { $0 } == 1, "close makes what was acknowledged durable")
    let reopened = try Journal(directory: dir.path, options: options(), logger: logger)
    defer { reopened.close(then: {}) }
    #expect(reopened.recovered.map(\.payload) == (0..<20).map(payload))
}

@Test(.timeLimit(.minutes(5))) func relaxedModeSyncsWithinTheIntervalAndRefusesAppendsWhileSyncsFail() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let counter = SyncCounter()
    var o = options()
    o.fileOperations = counter.operations
    o.durability = .relaxed(syncInterval: .milliseconds(20))
    let journal = try Journal(directory: dir.path, options: o, logger: logger)
    defer { journal.close(then: {}) }
    _ = try await journal.append(type: 1, payload: [1])
    // With no further append, the writer still syncs once the interval has passed.
    #expect(await eventually { counter.calls.withLock { $0 } != 0 })
    #expect(counter.calls.withLock { $0 } == 1)
    // A failing deferred fdatasync makes the journal fail: later appends are refused while
    // syncs fail (JournalFailureTests shows the recovery).
    counter.failing.withLock { $0 = true }
    _ = try await journal.append(type: 1, payload: [2])
    #expect(await eventually { journal.failure != nil })
    #expect(journal.failure?.code == .failedClosed)
    let error = await #expect(throws: StorageError.self) { try await journal.append(type: 1, payload: [3]) }
    #expect(error?.code == .failedClosed)
}

@Test(.timeLimit(.minutes(5))) func strictModeDefersTheSyncOfDeferredRecordsToTheNextDurableAppendOrTheInterval() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let counter = SyncCounter()
    var o = options()
    o.fileOperations = counter.operations
    o.deferredSyncInterval = .seconds(3600)
    let journal = try Journal(directory: dir.path, options: o, logger: logger)
    for i in 0..<10 { _ = try await journal.append(type: 2, payload: payload(i), kind: .deferredMarker) }
    #expect(counter.calls.withLock { $0 } == 0, "deferred records are acknowledged once written")
    // A durable append's fdatasync covers the deferred records before it.
    _ = try await journal.append(type: 1, payload: payload(10))
    #expect(counter.calls.withLock { $0 } == 1)
    _ = try await journal.append(type: 2, payload: payload(11), kind: .deferredMarker)
    #expect(counter.calls.withLock { $0 } == 1)
    // A carried copy waits for its own fdatasync.
    _ = try await journal.appendLocated(type: 2, payload: payload(12), kind: .carriedCopy)
    #expect(counter.calls.withLock { $0 } == 2)
    _ = try await journal.append(type: 2, payload: payload(13), kind: .deferredMarker)
    await journal.close()
    #expect(counter.calls.withLock { $0 } == 3, "close makes the deferred record durable")
    let reopened = try Journal(directory: dir.path, options: options(), logger: logger)
    defer { reopened.close(then: {}) }
    #expect(reopened.recovered.map(\.payload) == (0..<14).map(payload))

    // Without another append, the writer syncs once the deferred interval has passed.
    let other = try TemporaryDirectory()
    defer { other.remove() }
    let timed = SyncCounter()
    var t = options()
    t.fileOperations = timed.operations
    t.deferredSyncInterval = .milliseconds(20)
    let short = try Journal(directory: other.path, options: t, logger: logger)
    defer { short.close(then: {}) }
    _ = try await short.append(type: 2, payload: [1], kind: .deferredMarker)
    #expect(await eventually { timed.calls.withLock({ $0 }) != 0 })
    #expect(timed.calls.withLock { $0 } == 1)
}

@Test(.timeLimit(.minutes(5))) func readsRecordsOfEverySizeAndRefusesWrongLocations() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let journal = try Journal(directory: dir.path, options: options(segmentSize: 64 << 10), logger: logger)
    defer { journal.close(then: {}) }
    // Around the 4 KiB first read: a frame of 4,095, 4,096 and 4,097 bytes, and larger ones.
    let sizes = [0, 1, 4096 - 22, 4096 - 21, 4096 - 20, 10_000, 70_000, 3]
    var locations: [JournalLocation] = []
    for (i, size) in sizes.enumerated() {
        locations.append(try await journal.appendLocated(type: 1, payload: [UInt8](repeating: UInt8(i), count: size)))
    }
    // Twice, so that the second pass reads through the descriptors kept open.
    for _ in 0..<2 {
        for (i, (size, location)) in zip(sizes, locations).enumerated() {
            let record = try journal.read(at: location)
            #expect(record.sequence == location.sequence)
            #expect(record.payload == [UInt8](repeating: UInt8(i), count: size), "size \(size)")
        }
    }
    // A location that does not hold the record: an error naming the record, no crash.
    var shifted = locations[5]
    shifted.offset += 1
    let error = #expect(throws: StorageError.self) { try journal.read(at: shifted) }
    #expect(error?.message.contains("record \(shifted.sequence)") == true)
    var beyond = locations[7]
    beyond.offset = 1 << 30
    #expect(throws: StorageError.self) { try journal.read(at: beyond) }
    // A removed segment cannot be read any more, even after reads kept it open.
    let sealed = try journal.segments().filter { !$0.isActive }.map(\.name)
    try #require(!sealed.isEmpty)
    try journal.removeSegments(sealed)
    let removed = try #require(locations.first { sealed.contains($0.segment) })
    let gone = #expect(throws: StorageError.self) { try journal.read(at: removed) }
    #expect(gone?.code == .notFound)
    // Once closed, nothing is read (or opened again).
    await journal.close()
    let closed = #expect(throws: StorageError.self) { try journal.read(at: locations.last!) }
    #expect(closed?.code == .closed)
}

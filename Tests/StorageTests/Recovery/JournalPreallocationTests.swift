#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Storage
import SurveyTesting
import Testing

private let logger = Logger(label: "preallocation-tests")

private func options(segmentSize: Int, encrypted: Bool, faults: FileFaults? = nil) -> JournalOptions {
    var o = JournalOptions()
    o.segmentSize = segmentSize
    o.retryInterval = .milliseconds(20)
    if encrypted { o.encryption = Encryption.keys(1) }
    if let faults { o.fileOperations = faults.operations }
    return o
}

/// Payloads of varied sizes whose last byte is never zero (so that a frame cut short and followed
/// by zeros never reads as the whole frame).
private func payload(_ i: Int) -> [UInt8] {
    Array("prealloc-\(i)-".utf8) + (0..<((i * 37) % 180)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ i) } + [0x2E]
}

private func size(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : -1
}

/// The end of the frame at `location` holding `payload`.
private func end(of location: JournalLocation, _ payload: [UInt8], encrypted: Bool) -> Int {
    location.offset + 21 + payload.count + (encrypted ? 16 : 0)
}


/// The active segment is preallocated, so that an append does not change its size; a segment
/// that is sealed (rotated or closed) keeps no unused tail; recovery tells the zero tail from a
/// torn one.
@Suite(.timeLimit(.minutes(5))) struct JournalPreallocationTests {
    @Test(arguments: [false, true])
    func theActiveSegmentIsPreallocatedAndAnAppendDoesNotChangeItsSize(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try Journal(directory: dir.path, options: options(segmentSize: 64 << 10, encrypted: encrypted), logger: logger)
        let active = dir.path + "/" + (try #require(try journal.segments().last).name)
        #expect(size(active) == 64 << 10)
        #expect(journal.diskBytes + journal.preallocatedBytes == 64 << 10)
        var last: JournalLocation?
        for i in 1...20 {
            last = try await journal.appendLocated(type: 1, payload: payload(i))
            #expect(size(active) == 64 << 10, "append \(i) changed the segment's size")
        }
        await journal.close()
        let records = end(of: try #require(last), payload(20), encrypted: encrypted)
        #expect(size(active) == records, "a closed segment ends with its last record")
        let reopened = try Journal(directory: dir.path, options: options(segmentSize: 64 << 10, encrypted: encrypted), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.payload) == (1...20).map(payload))
        #expect(reopened.recoveryReport.isEmpty)
    }

    @Test(arguments: [false, true])
    func aRotatedSegmentKeepsNoUnusedTail(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try Journal(directory: dir.path, options: options(segmentSize: 4096, encrypted: encrypted), logger: logger)
        defer { journal.close(then: {}) }
        var ends: [String: Int] = [:]
        for i in 1...120 {
            let location = try await journal.appendLocated(type: 1, payload: payload(i))
            ends[location.segment] = end(of: location, payload(i), encrypted: encrypted)
        }
        let segments = try journal.segments()
        #expect(segments.filter { !$0.isActive }.count >= 3)
        for segment in segments {
            #expect(segment.bytes == ends[segment.name], "\(segment.name)")
            #expect(size(dir.path + "/" + segment.name) == (segment.isActive ? max(4096, segment.bytes) : segment.bytes), "\(segment.name)")
        }
        #expect(journal.diskBytes == segments.reduce(0) { $0 + $1.bytes })
        #expect(journal.preallocatedBytes == max(0, 4096 - (segments.last?.bytes ?? 0)))
    }

    /// A crash leaves a preallocated segment with its synced records, then whatever the kernel
    /// wrote of later writes, then zeros. Cut and garbled at random points past the synced end
    /// (seeded), the segment gives back every synced record, and nothing else.
    @Test(arguments: [false, true])
    func aPreallocatedSegmentCutAndGarbledPastItsSyncedEndLosesNothingAndInventsNothing(encrypted: Bool) async throws {
        let source = try TemporaryDirectory()
        defer { source.remove() }
        let o = options(segmentSize: 32 << 10, encrypted: encrypted)
        let journal = try Journal(directory: source.path, options: o, logger: logger)
        var locations: [JournalLocation] = []
        for i in 1...40 { locations.append(try await journal.appendLocated(type: 1, payload: payload(i))) }
        // The files as a crash would leave them: copied while the journal is open.
        var files: [String: [UInt8]] = [:]
        for name in try Encryption.segmentNames(source.path) { files[name] = try Encryption.bytes(source.path + "/" + name) }
        await journal.close()
        let last = try #require(locations.last)
        let active = last.segment
        let synced = end(of: last, payload(40), encrypted: encrypted)
        let original = try #require(files[active])
        #expect(original.count == 32 << 10, "the active segment was preallocated")
        #expect(original[synced...].allSatisfy { $0 == 0 })
        let frames = zip(locations, 1...40).filter { $0.0.segment == active }.map { ($0.0.offset, end(of: $0.0, payload($0.1), encrypted: encrypted)) }

        var random = SplitMix(seed: encrypted ? 2027 : 2026)
        for trial in 0..<60 {
            var bytes = original
            var what: [String] = []
            // A torn write: part of a frame at the synced end (as a later append would have begun).
            if Bool.random(using: &random) {
                let (start, stop) = frames[Int.random(in: 0..<frames.count, using: &random)]
                let count = Int.random(in: 1..<(stop - start), using: &random)
                bytes.replaceSubrange(synced..<(synced + count), with: original[start..<(start + count)])
                what.append("torn frame of \(count) bytes")
            }
            // Garbage somewhere past the synced end.
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                let count = Int.random(in: 1...300, using: &random)
                let at = Int.random(in: synced...(bytes.count - count), using: &random)
                for k in at..<(at + count) { bytes[k] = UInt8.random(in: 0...255, using: &random) }
                what.append("\(count) random bytes at \(at)")
            }
            // Cut anywhere past the synced end.
            if Bool.random(using: &random) {
                let cut = Int.random(in: synced...bytes.count, using: &random)
                bytes.removeSubrange(cut...)
                what.append("cut at \(cut)")
            }
            let dir = try TemporaryDirectory()
            defer { dir.remove() }
            for (name, content) in files { try Encryption.write(name == active ? bytes : content, to: dir.path + "/" + name) }
            let reopened = try Journal(directory: dir.path, options: o, logger: logger)
            #expect(reopened.recovered.map(\.sequence) == Array(1...40), "trial \(trial): \(what)")
            #expect(reopened.recovered.map(\.payload) == (1...40).map(payload), "trial \(trial): \(what)")
            #expect(reopened.recoveryReport.allSatisfy { $0.kind == .tornTail }, "trial \(trial): \(what): \(reopened.recoveryReport)")
            #expect(try await reopened.append(type: 1, payload: [1]) == 41, "trial \(trial): \(what)")
            await reopened.close()
        }
    }

    // MARK: Faults

    /// A file system that refuses `fallocate` gets zeros written ahead instead.
    @Test(arguments: [false, true])
    func whereFallocateIsRefusedZerosAreWrittenAhead(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        faults.fail("fallocate", with: EOPNOTSUPP)
        let o = options(segmentSize: 16 << 10, encrypted: encrypted, faults: faults)
        let journal = try Journal(directory: dir.path, options: o, logger: logger)
        let active = dir.path + "/" + (try #require(try journal.segments().last).name)
        #expect(size(active) == 16 << 10)
        for i in 1...10 {
            _ = try await journal.append(type: 1, payload: payload(i))
            #expect(size(active) == 16 << 10)
        }
        await journal.close()
        let reopened = try Journal(directory: dir.path, options: options(segmentSize: 16 << 10, encrypted: encrypted), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.payload) == (1...10).map(payload))
        #expect(reopened.recoveryReport.isEmpty)
    }

    /// A preallocation that fails (no space for the whole segment, a failing disk) is not an
    /// error: the segment grows with each write as a file does, and every append is durable.
    @Test(arguments: [ENOSPC, EIO], [false, true])
    func aFailedPreallocationLeavesTheSegmentGrowing(code: Int32, encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        faults.fail("fallocate", with: code)
        let journal = try Journal(directory: dir.path, options: options(segmentSize: 2048, encrypted: encrypted, faults: faults), logger: logger)
        var sizes: Set<Int> = []
        for i in 1...40 {
            let location = try await journal.appendLocated(type: 1, payload: payload(i))
            sizes.insert(size(dir.path + "/" + location.segment))
        }
        #expect(sizes.count > 10, "the segments grew with the appends")
        #expect(journal.currentFailure == nil)
        #expect(try journal.segments().count > 2, "segments still rotate")
        await journal.close()
        let reopened = try Journal(directory: dir.path, options: options(segmentSize: 2048, encrypted: encrypted), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.payload) == (1...40).map(payload))
        #expect(reopened.recoveryReport.isEmpty)
    }

    /// Zeros written ahead that cannot be written (the disk is full) leave the segment growing.
    @Test func zerosThatCannotBeWrittenAheadLeaveTheSegmentGrowing() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        faults.fail("fallocate", with: EOPNOTSUPP)
        faults.fail("fdatasync", .any, with: ENOSPC)
        // Opening: the zeros' fdatasync fails; the preallocation counts as failed, not the open.
        let journal = try Journal(directory: dir.path, options: options(segmentSize: 16 << 10, encrypted: false, faults: faults), logger: logger)
        faults.clear()
        for i in 1...5 { _ = try await journal.append(type: 1, payload: payload(i)) }
        await journal.close()
        let reopened = try Journal(directory: dir.path, options: options(segmentSize: 16 << 10, encrypted: false), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.payload) == (1...5).map(payload))
        #expect(reopened.recoveryReport.isEmpty)
    }

    /// A descriptor that cannot be positioned for the next segment fails the append (nothing is
    /// acknowledged), and the journal resumes by itself once it can, losing nothing.
    @Test(arguments: [false, true])
    func aSeekThatFailsAtARotationRefusesTheAppendAndTheJournalResumes(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        let journal = try Journal(directory: dir.path, options: options(segmentSize: 512, encrypted: encrypted, faults: faults), logger: logger)
        var acknowledged: [[UInt8]] = []
        for i in 1...3 {
            _ = try await journal.append(type: 1, payload: payload(i))
            acknowledged.append(payload(i))
        }
        faults.fail("lseek", with: EIO)
        let refusal = await appendUntilRefused(journal, 4...30, payload: payload, acknowledged: &acknowledged)
        #expect(refusal?.code == .failedClosed)
        #expect(journal.currentFailure?.call == "lseek")
        faults.clear()
        try await waitUntilItWritesAgain(journal)
        _ = try await journal.append(type: 1, payload: payload(99))
        acknowledged.append(payload(99))
        await journal.close()
        let reopened = try Journal(directory: dir.path, options: options(segmentSize: 512, encrypted: encrypted), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.payload) == acknowledged)
        #expect(reopened.recoveryReport.isEmpty, "\(reopened.recoveryReport)")
    }

    /// A sealed segment's tail that cannot be cut at a rotation (here one a snapshot asks for,
    /// before the segment is full) fails the append, and the journal resumes by itself.
    @Test func aTailThatCannotBeCutAtARotationRefusesTheAppendAndTheJournalResumes() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = FileFaults()
        let journal = try Journal(directory: dir.path, options: options(segmentSize: 64 << 10, encrypted: false, faults: faults), logger: logger)
        let first = try await journal.appendLocated(type: 1, payload: payload(1))
        faults.fail("ftruncate", with: EIO)
        await #expect(throws: StorageError.self) { try await journal.append(type: 2, payload: payload(2), kind: .snapshot) }
        #expect(journal.currentFailure?.call == "ftruncate")
        faults.clear()
        try await waitUntilItWritesAgain(journal)
        let snapshot = try await journal.appendLocated(type: 2, payload: payload(3), kind: .snapshot)
        #expect(snapshot.segment != first.segment && snapshot.sequence == 2)
        #expect(size(dir.path + "/" + first.segment) == end(of: first, payload(1), encrypted: false), "the sealed segment ends with its record")
        await journal.close()
        let reopened = try Journal(directory: dir.path, options: options(segmentSize: 64 << 10, encrypted: false), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.payload) == [payload(1), payload(3)])
        #expect(reopened.recoveryReport.isEmpty)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Storage
import SurveyTesting
import Synchronization
import Testing

private let logger = Logger(label: "journal-encryption")

private func options(_ keys: JournalKeys?) -> JournalOptions {
    var o = JournalOptions()
    o.encryption = keys
    o.retryInterval = .milliseconds(20)
    return o
}

/// Payloads of one length, so that frames can be swapped.
private func payload(_ i: Int) -> [UInt8] { Array("answer-secretword-\(i % 10)".utf8) }

/// Writes records 1 to `count` into a journal under `keys`, closes it and returns the locations.
private func journal(_ dir: TemporaryDirectory, _ keys: JournalKeys?, count: Int = 3, first: Int = 1) async throws -> [JournalLocation] {
    let journal = try Journal(directory: dir.path, options: options(keys), logger: logger)
    defer { journal.close(then: {}) }  // when it throws
    var locations: [JournalLocation] = []
    for i in first..<(first + count) { locations.append(try await journal.appendLocated(type: 1, payload: payload(i))) }
    let result = locations
    await journal.close()
    return result
}

@Suite(.timeLimit(.minutes(5))) struct JournalEncryptionTests {
    @Test func recordsAreReadBackAndNoFileHoldsThemInTheClear() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let locations = try await journal(dir, Encryption.keys(1), count: 5)
        #expect(try Encryption.anyFile(under: dir.path, holds: "secretword") == nil)
        let reopened = try Journal(directory: dir.path, options: options(Encryption.keys(1)), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recoveryReport.isEmpty)
        #expect(reopened.recovered.map(\.payload) == (1...5).map(payload))
        #expect(try reopened.read(at: locations[2]).payload == payload(3))
        #expect(try reopened.allRecords().map(\.payload) == (1...5).map(payload))
        let segments = try reopened.segments()
        #expect(segments.allSatisfy { $0.protection == .currentKey })
    }

    /// A bit flipped in a record's ciphertext, tag, type or sequence number is detected, whether
    /// or not the CRC was made to match (then only the authentication catches it).
    @Test(arguments: ["ciphertext", "tag", "type", "sequence"], [false, true])
    func aFlippedBitIsDetected(region: String, fixCRC: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let locations = try await journal(dir, Encryption.keys(1))
        let path = dir.path + "/" + locations[1].segment
        var segment = try Encryption.bytes(path)
        let frame = Encryption.frames(segment)[1]
        #expect(frame.offset == locations[1].offset)
        let at = switch region {
        case "ciphertext": frame.offset + 21 + 3
        case "tag": frame.offset + 21 + frame.length - 1
        case "type": frame.offset + 12
        default: frame.offset + 13
        }
        segment[at] ^= 0x04
        if fixCRC { Encryption.fixCRC(&segment, frame: frame.offset, length: frame.length) }
        try Encryption.write(segment, to: path)
        let reopened = try Journal(directory: dir.path, options: options(Encryption.keys(1)), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.payload) == [payload(1), payload(3)])
        #expect(reopened.recoveryReport.map(\.kind) == [.corruptSegment])
        #expect(throws: StorageError.self) { try reopened.read(at: locations[1]) }
    }

    @Test func aFlippedBitInTheSegmentHeaderIsDetected() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let locations = try await journal(dir, Encryption.keys(1))
        let path = dir.path + "/" + locations[0].segment
        var segment = try Encryption.bytes(path)
        segment[10] ^= 0x01  // a bit of the salt
        try Encryption.write(segment, to: path)
        let error = try #require(throws: StorageError.self) { try Journal(directory: dir.path, options: options(Encryption.keys(1)), logger: logger) }
        #expect(error.code == .keyRefused)
        #expect(error.message.contains(path) && error.message.contains("damaged"))
        // With its check value made to match, the salt gives another data key: no record opens.
        let crc = CRC32C.checksum(Array(segment[..<44]))
        withUnsafeBytes(of: crc.littleEndian) { segment.replaceSubrange(44..<48, with: $0) }
        try Encryption.write(segment, to: path)
        let reopened = try Journal(directory: dir.path, options: options(Encryption.keys(1)), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.isEmpty)
    }

    @Test func recordsSwappedWithinASegmentDoNotOpen() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let locations = try await journal(dir, Encryption.keys(1))
        let path = dir.path + "/" + locations[0].segment
        var segment = try Encryption.bytes(path)
        let frames = Encryption.frames(segment)
        #expect(frames[0].length == frames[1].length)
        let first = Array(segment[frames[0].offset..<frames[1].offset])
        let second = Array(segment[frames[1].offset..<frames[2].offset])
        segment.replaceSubrange(frames[0].offset..<frames[2].offset, with: second + first)
        try Encryption.write(segment, to: path)
        let reopened = try Journal(directory: dir.path, options: options(Encryption.keys(1)), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.payload) == [payload(3)])
    }

    @Test func aRecordMovedToAnotherSegmentDoesNotOpen() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let before = try await journal(dir, Encryption.keys(1))
        let after = try await journal(dir, Encryption.keys(1), first: 4)
        #expect(before[0].segment != after[0].segment)
        #expect(before[0].offset == after[0].offset)
        let from = try Encryption.bytes(dir.path + "/" + before[0].segment)
        var to = try Encryption.bytes(dir.path + "/" + after[0].segment)
        let frame = Encryption.frames(from)[0]
        to.replaceSubrange(frame.offset..<(frame.offset + 21 + frame.length), with: from[frame.offset..<(frame.offset + 21 + frame.length)])
        try Encryption.write(to, to: dir.path + "/" + after[0].segment)
        let reopened = try Journal(directory: dir.path, options: options(Encryption.keys(1)), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.sequence) == [1, 2, 3, 5, 6])
    }

    /// Every opening writes under a fresh salt in a new segment, so a torn tail that was cut is
    /// never written over under the salt it was written with.
    @Test func everyOpeningWritesUnderAFreshSaltAndACutTailIsNeverWrittenOver() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var cut: (name: String, size: Int)?
        for round in 0..<4 {
            let locations = try await journal(dir, Encryption.keys(1), count: 2, first: round * 2 + 1)
            if round == 1 {
                // A torn tail: the first half of another record's frame.
                let path = dir.path + "/" + locations[0].segment
                let segment = try Encryption.bytes(path)
                let frame = Encryption.frames(segment)[0]
                try Encryption.write(segment + segment[frame.offset..<(frame.offset + 20)], to: path)
                cut = (locations[0].segment, segment.count)
            }
        }
        let names = try Encryption.segmentNames(dir.path)
        let salts = try names.map { Array(try Encryption.bytes(dir.path + "/" + $0)[8..<24]) }
        #expect(Set(salts.map { $0.map(String.init).joined(separator: ",") }).count == names.count, "a salt was used twice")
        let cutSegment = try #require(cut)
        #expect(try Encryption.bytes(dir.path + "/" + cutSegment.name).count == cutSegment.size, "the cut segment was written to again")
        let reopened = try Journal(directory: dir.path, options: options(Encryption.keys(1)), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recovered.map(\.payload) == (1...8).map(payload))
    }

    /// After a write that failed half way, the next record goes to a new segment under a fresh
    /// salt, not to the offset the failed bytes were written at.
    @Test func aWriteThatFailedHalfWayIsFollowedByAFreshSalt() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = Faults()
        var o = options(Encryption.keys(1))
        o.fileOperations = faults.operations
        let journal = try Journal(directory: dir.path, options: o, logger: logger)
        defer { journal.close(then: {}) }
        let first = try await journal.appendLocated(type: 1, payload: payload(1))
        // Where the acknowledged record ends (the open segment is preallocated past it).
        let size = first.offset + 21 + payload(1).count + 16
        faults.shortWriteThen.withLock { $0 = ENOSPC }
        await #expect(throws: StorageError.self) { try await journal.append(type: 1, payload: payload(2)) }
        faults.clear()
        let next = try await journal.appendLocated(type: 1, payload: payload(3))
        #expect(next.segment != first.segment)
        #expect(try Encryption.bytes(dir.path + "/" + first.segment).count == size)
        let salts = try Encryption.segmentNames(dir.path).map { Array(try Encryption.bytes(dir.path + "/" + $0)[8..<24]) }
        #expect(salts.count == 2 && salts[0] != salts[1])
        #expect(try journal.read(at: next).payload == payload(3))
    }

    /// A payload of the largest size, sealed, is 16 bytes longer: it is still read back.
    @Test func aPayloadOfTheLargestSizeIsReadBack() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var o = options(Encryption.keys(1))
        o.maxPayloadSize = 4096
        let largest = [UInt8](repeating: 0x61, count: 4096)
        let location: JournalLocation
        do {
            let journal = try Journal(directory: dir.path, options: o, logger: logger)
            defer { journal.close(then: {}) }  // when the block throws
            location = try await journal.appendLocated(type: 1, payload: largest)
            #expect(try journal.read(at: location).payload == largest)
            await journal.close()
        }
        let reopened = try Journal(directory: dir.path, options: o, logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recoveryReport.isEmpty)
        #expect(reopened.recovered.map(\.payload) == [largest])
        #expect(try reopened.read(at: location).payload == largest)
    }

    @Test func keptCopiesOfDamagedSegmentsAndTornTailsStayEncrypted() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let locations = try await journal(dir, Encryption.keys(1), count: 4)
        let path = dir.path + "/" + locations[0].segment
        var segment = try Encryption.bytes(path)
        let frames = Encryption.frames(segment)
        segment[frames[1].offset + 25] ^= 0xFF  // mid-segment damage: the segment is kept as a copy
        segment += segment[frames[2].offset..<(frames[2].offset + 30)]  // and a torn tail
        try Encryption.write(segment, to: path)
        let reopened = try Journal(directory: dir.path, options: options(Encryption.keys(1)), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(Set(reopened.recoveryReport.map(\.kind)) == [.corruptSegment, .tornTail])
        #expect(try Encryption.anyFile(under: dir.path, holds: "secretword") == nil)
    }
}

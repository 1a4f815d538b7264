#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Storage
import SurveyTesting
import Testing

/// A keyed journal reads only the segments in the clear it listed when encryption was turned on:
/// a segment in the clear added later (named to sort first, so that it would be replayed first) or
/// a listed one changed is set aside unread; a real migration still reads every plain record.
@Suite(.timeLimit(.minutes(5))) struct PlainSegmentListTests {
    static let logger = Logger(label: "plain-segments")

    static func options(_ keys: JournalKeys?) -> JournalOptions {
        var o = JournalOptions()
        o.encryption = keys
        o.retryInterval = .milliseconds(20)
        return o
    }

    /// Writes `payloads` to a journal in `dir` under `keys` and closes it.
    static func write(_ dir: String, _ keys: JournalKeys?, _ payloads: [String]) async throws {
        let journal = try Journal(directory: dir, options: options(keys), logger: logger)
        defer { journal.close(then: {}) }  // when it throws
        for payload in payloads { _ = try await journal.appendLocated(type: 1, payload: Array(payload.utf8)) }
        await journal.close()
    }

    static func payloads(_ dir: String, _ keys: JournalKeys?) async throws -> [String] {
        let journal = try Journal(directory: dir, options: options(keys), logger: logger)
        defer { journal.close(then: {}) }  // when it throws
        let result = journal.recovered.map { String(decoding: $0.payload, as: UTF8.self) }
        await journal.close()
        return result
    }

    /// A segment in the clear holding `payload`, made by a journal without a key elsewhere.
    static func plainSegment(_ payload: String) async throws -> [UInt8] {
        let other = try TemporaryDirectory()
        defer { other.remove() }
        try await write(other.path, nil, [payload])
        let name = try #require(try Encryption.segmentNames(other.path).first)
        return try Encryption.bytes(other.path + "/" + name)
    }

    @Test func aSegmentInTheClearAddedToAnEncryptedJournalIsSetAsideUnread() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await Self.write(dir.path, Encryption.keys(1), ["real-1", "real-2"])
        let injected = dir.path + "/segment-0000000000000000.log"
        try Encryption.write(try await Self.plainSegment("injected-answer"), to: injected)
        #expect(try Journal.checkKeys(directory: dir.path, keys: Encryption.keys(1)) == (), "it sorts first, so the old check let it through")

        await #expect(try Self.payloads(dir.path, Encryption.keys(1)) == ["real-1", "real-2"])
        #expect(!FileManager.default.fileExists(atPath: injected))
        #expect(FileManager.default.fileExists(atPath: injected + ".unlisted"), "kept aside for the operator")
        await #expect(try Self.payloads(dir.path, Encryption.keys(1)) == ["real-1", "real-2"], "and stays out")
    }

    @Test func aMigrationReadsItsPlainSegmentsAndNothingAddedLater() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await Self.write(dir.path, nil, ["before-1", "before-2"])
        // The first opening with a key lists the plain segment and reads it.
        try await Self.write(dir.path, Encryption.keys(1), ["after-1"])
        await #expect(try Self.payloads(dir.path, Encryption.keys(1)) == ["before-1", "before-2", "after-1"])
        // A rotation rewrites the list under the new key; the migration is still read.
        await #expect(try Self.payloads(dir.path, Encryption.keys(2, old: [1])) == ["before-1", "before-2", "after-1"])

        // A second plain segment, named to sort before the migrated one: set aside.
        try Encryption.write(try await Self.plainSegment("injected"), to: dir.path + "/segment-0000000000000000.log")
        await #expect(try Self.payloads(dir.path, Encryption.keys(2, old: [1])) == ["before-1", "before-2", "after-1"])

        // The migrated segment changed (a record appended in the clear): set aside too.
        let migrated = try #require(try Encryption.segmentNames(dir.path).first)
        var bytes = try Encryption.bytes(dir.path + "/" + migrated)
        bytes += try await Self.plainSegment("appended")
        try Encryption.write(bytes, to: dir.path + "/" + migrated)
        await #expect(try Self.payloads(dir.path, Encryption.keys(2, old: [1])) == ["after-1"])
        #expect(FileManager.default.fileExists(atPath: dir.path + "/" + migrated + ".unlisted"))
    }

    @Test func aListThatDoesNotAuthenticateAcceptsNoPlainSegment() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await Self.write(dir.path, nil, ["before"])
        try await Self.write(dir.path, Encryption.keys(1), ["after"])
        let list = dir.path + "/plain-segments"
        var bytes = try Encryption.bytes(list)
        bytes[bytes.count - 40] ^= 0x01
        try Encryption.write(bytes, to: list)
        await #expect(try Self.payloads(dir.path, Encryption.keys(1)) == ["after"])
    }

    /// A crash image of a journal without a key: its files as they are while it is open (its
    /// active segment preallocated past its records), copied to `image`. Every append was
    /// acknowledged after its fdatasync, so the copy holds what a kill -9 or a power cut leaves.
    static func crashImage(_ payloads: [String], into image: String) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let journal = try Journal(directory: dir.path, options: options(nil), logger: logger)
        for payload in payloads { _ = try await journal.appendLocated(type: 1, payload: Array(payload.utf8)) }
        try FileManager.default.createDirectory(atPath: image, withIntermediateDirectories: true)
        for name in try Encryption.segmentNames(dir.path) {
            try Encryption.write(try Encryption.bytes(dir.path + "/" + name), to: image + "/" + name)
        }
        await journal.close()
    }

    /// Encryption turned on after an unclean stop: the first keyed opening cuts the plain
    /// segment's preallocated tail (or a torn one); every later keyed opening still reads it.
    @Test(arguments: [false, true])
    func encryptionTurnedOnAfterAnUncleanStopKeepsEveryRecordAcrossStarts(tornTail: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await Self.crashImage(["before-1", "before-2"], into: dir.path)
        let segment = dir.path + "/" + (try #require(try Encryption.segmentNames(dir.path).first))
        let preallocated = try Encryption.bytes(segment)
        #expect(preallocated.count > 4096, "the active segment was preallocated: \(preallocated.count) bytes")
        if tornTail {
            // Half a frame written when the power went: a torn tail before the zeros.
            var bytes = preallocated
            let end = bytes.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0
            for index in end ..< end + 9 { bytes[index] = 0xA5 }
            try Encryption.write(bytes, to: segment)
        }
        try await Self.write(dir.path, Encryption.keys(1), ["after-1"])
        for start in 2 ... 4 {
            await #expect(try Self.payloads(dir.path, Encryption.keys(1)) == ["before-1", "before-2", "after-1"], "keyed start \(start)")
        }
        // A key rotated after it: still every record.
        await #expect(try Self.payloads(dir.path, Encryption.keys(2, old: [1])) == ["before-1", "before-2", "after-1"])
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(!names.contains { $0.hasSuffix(".unlisted") }, "nothing the journal wrote is set aside: \(names)")
    }

    /// With encrypted segments present and the list removed, no segment in the clear is read: one
    /// copied in from another kiosk is not taken in, and the journal names what it set aside.
    @Test func aRemovedListReadsNoSegmentInTheClear() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await Self.write(dir.path, nil, ["before"])
        try await Self.write(dir.path, Encryption.keys(1), ["after"])
        try FileManager.default.removeItem(atPath: dir.path + "/plain-segments")
        let injected = dir.path + "/segment-0000000000000000.log"
        try Encryption.write(try await Self.plainSegment("another-kiosk"), to: injected)

        let journal = try Journal(directory: dir.path, options: Self.options(Encryption.keys(1)), logger: Self.logger)
        let read = journal.recovered.map { String(decoding: $0.payload, as: UTF8.self) }
        let setAside = journal.setAsideSegments
        await journal.close()
        #expect(read == ["after"], "the encrypted records are read, nothing in the clear")
        #expect(setAside.contains("segment-0000000000000000.log.unlisted"), "\(setAside)")
        #expect(setAside.count == 2, "the injected segment and the one from before encryption: \(setAside)")
        #expect(!FileManager.default.fileExists(atPath: injected))
        // A journal without a key sees nothing set aside to report.
        await #expect(try Self.payloads(dir.path, Encryption.keys(1)) == ["after"], "and it stays out")
    }

    /// A list left by a keyed opening that died before its first encrypted segment is removed by
    /// an opening without a key, so that the next keyed opening lists what was written in the
    /// clear meanwhile instead of setting it aside.
    @Test func anOpeningWithoutAKeyRemovesAStaleList() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await Self.write(dir.path, nil, ["one"])
        try await Self.write(dir.path, Encryption.keys(1), [])
        for name in try Encryption.segmentNames(dir.path) where try Encryption.bytes(dir.path + "/" + name).starts(with: Array("SVE1".utf8)) {
            try FileManager.default.removeItem(atPath: dir.path + "/" + name)
        }
        #expect(FileManager.default.fileExists(atPath: dir.path + "/plain-segments"))
        try await Self.write(dir.path, nil, ["two"])
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/plain-segments"))
        await #expect(try Self.payloads(dir.path, Encryption.keys(1)) == ["one", "two"])
    }
}

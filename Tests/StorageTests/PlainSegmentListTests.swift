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
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
@testable import Storage
import SurveyTesting
import Testing

private let logger = Logger(label: "journal-keys")

private func queueOptions(_ keys: JournalKeys?) -> SubmissionQueueOptions {
    var o = SubmissionQueueOptions()
    o.journal.encryption = keys
    return o
}

private func metadata() -> SubmissionMetadata {
    SubmissionMetadata(key: UUID(), stage: "s", language: "en", definitionHash: "h", queuedAt: Date())
}

private func body(_ i: Int) -> [UInt8] { Array("{\"email\":\"respondent\(i)@example.org\"}".utf8) }

/// Enqueues `count` submissions into the queue in `dir` under `keys` and closes it.
private func enqueue(_ dir: TemporaryDirectory, _ keys: JournalKeys?, count: Int, from first: Int = 0) async throws {
    let queue = try SubmissionQueue(directory: dir.path, options: queueOptions(keys), logger: logger)
    defer { queue.close(then: {}) }  // when it throws
    for i in first..<(first + count) { _ = try await queue.enqueue(metadata(), body: body(i)) }
    await queue.close()
}

/// The bodies of the pending submissions of the queue in `dir`, opened under `keys`.
private func bodies(_ dir: TemporaryDirectory, _ keys: JournalKeys?) async throws -> [[UInt8]] {
    let queue = try SubmissionQueue(directory: dir.path, options: queueOptions(keys), logger: logger)
    defer { queue.close(then: {}) }  // when it throws
    var result: [[UInt8]] = []
    for submission in await queue.pending(limit: 100) {
        result.append(Array(try await queue.body(of: submission.id)))
    }
    await queue.close()
    return result
}

@Suite(.timeLimit(.minutes(5))) struct JournalKeyTests {
    // MARK: Refusals: each names the file and leaves every file as it was

    @Test func anotherKeyIsRefusedAndNothingIsChanged() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await enqueue(dir, Encryption.keys(1), count: 2)
        let before = try DirectorySnapshot.take(dir.path)
        let error = try #require(throws: StorageError.self) { try SubmissionQueue(directory: dir.path, options: queueOptions(Encryption.keys(2, old: [3])), logger: logger) }
        #expect(error.code == .keyRefused)
        #expect(error.message.contains(dir.path + "/segment-"))
        #expect(error.message.contains(Encryption.key(1).fingerprint) && error.message.contains(Encryption.key(2).fingerprint))
        #expect(try DirectorySnapshot.take(dir.path) == before)
    }

    @Test func noKeyForAnEncryptedDirectoryIsRefusedAndNothingIsChanged() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await enqueue(dir, Encryption.keys(1), count: 2)
        let before = try DirectorySnapshot.take(dir.path)
        let error = try #require(throws: StorageError.self) { try SubmissionQueue(directory: dir.path, options: queueOptions(nil), logger: logger) }
        #expect(error.code == .keyRefused)
        #expect(error.message.contains("no encryption key") && error.message.contains(dir.path + "/segment-"))
        #expect(try DirectorySnapshot.take(dir.path) == before)
    }

    @Test func theCheckAloneChangesNothing() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await enqueue(dir, nil, count: 2)
        let before = try DirectorySnapshot.take(dir.path)
        try Journal.checkKeys(directory: dir.path, keys: Encryption.keys(1))
        #expect(try DirectorySnapshot.take(dir.path) == before)
    }

    @Test(arguments: ["missing", "short", "long", "groupReadable", "directory"])
    func aKeyFileThatCannotBeUsedIsRefusedNamingIt(problem: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/key"
        switch problem {
        case "short": try Encryption.write([UInt8](repeating: 1, count: 31), to: path)
        case "long": try Encryption.write(Array(Data([UInt8](repeating: 1, count: 48)).base64EncodedString().utf8), to: path)
        case "groupReadable": try Encryption.write([UInt8](repeating: 1, count: 32), to: path)
        case "directory": mkdir(path, 0o700)
        default: break
        }
        chmod(path, problem == "groupReadable" ? 0o640 : problem == "directory" ? 0o700 : 0o600)
        let error = try #require(throws: StorageError.self) { try JournalKey.load(from: path) }
        #expect(error.code == .keyRefused)
        #expect(error.message.contains(path))
        let expected = ["missing": "does not exist", "short": "31 bytes", "long": "64 bytes", "groupReadable": "chmod 600", "directory": "not a regular file"][problem]!
        #expect(error.message.contains(expected), "\(error.message)")
    }

    @Test(.enabled(if: getuid() != 0, "root reads a file whatever its mode"))
    func anUnreadableKeyFileIsRefusedNamingIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/key"
        try Encryption.write([UInt8](repeating: 1, count: 32), to: path)
        chmod(path, 0o200)
        let error = try #require(throws: StorageError.self) { try JournalKey.load(from: path) }
        #expect(error.message.contains(path) && error.message.contains("cannot be read"))
    }

    @Test func aKeyIsReadRawOrInBase64AndKnownByItsFingerprintOnly() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let raw: [UInt8] = (0..<32).map { UInt8($0 * 5) }
        try Encryption.write(raw, to: dir.path + "/raw")
        try Encryption.write(Array((Data(raw).base64EncodedString() + "\n").utf8), to: dir.path + "/b64")
        chmod(dir.path + "/raw", 0o600)
        chmod(dir.path + "/b64", 0o400)
        let a = try JournalKey.load(from: dir.path + "/raw")
        let b = try JournalKey.load(from: dir.path + "/b64")
        #expect(a.id == b.id)
        #expect(a.fingerprint.count == 8 && a.fingerprint.allSatisfy(\.isHexDigit))
        let hex = raw.map { String(format: "%02x", $0) }.joined()
        #expect(!hex.contains(a.fingerprint))
        #expect(a.fingerprint != Encryption.key(1).fingerprint)
    }

    // MARK: Rotation and migration

    @Test func recordsUnderAnOldKeyAreReadAndCompactionRewritesThemUnderTheNewOne() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await enqueue(dir, Encryption.keys(1), count: 3)
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: queueOptions(Encryption.keys(2, old: [1])), logger: logger)
            defer { queue.close(then: {}) }  // when the block throws
            #expect(try queue.journal.segments().map(\.protection) == [.oldKey, .currentKey])
            _ = try await queue.enqueue(metadata(), body: body(3))
            let report = try await queue.compact()
            #expect(report.carriedRecords == 3)
            #expect(try queue.journal.segments().allSatisfy { $0.protection == .currentKey })
            await queue.close()
        }
        #expect(try await bodies(dir, Encryption.keys(2)) == (0..<4).map(body))
        #expect(try Encryption.anyFile(under: dir.path, holds: "respondent0@example.org") == nil)
    }

    /// ENOSPC, then EIO on fsync, while a compaction rewrites segments in the clear under the key:
    /// nothing is lost, and the next compaction finishes the job.
    @Test(arguments: [("write", ENOSPC), ("fsync", EIO)])
    func aFaultWhileCompactionRewritesSegmentsLosesNothing(call: String, code: Int32) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await enqueue(dir, nil, count: 5)
        let faults = FileFaults()
        var o = queueOptions(Encryption.keys(1))
        o.journal.fileOperations = faults.operations
        o.journal.retryInterval = .milliseconds(20)
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: o, logger: logger)
            defer { queue.close(then: {}) }  // when the block throws
            faults.fail(call, with: code)
            await #expect(throws: StorageError.self) { try await queue.compact() }
            faults.clear()
            #expect(await eventually(every: .milliseconds(10)) { queue.journal.currentFailure == nil })
            _ = try await queue.compact()
            #expect(try queue.journal.segments().allSatisfy { $0.protection == .currentKey })
            await queue.close()
        }
        #expect(try await bodies(dir, Encryption.keys(1)) == (0..<5).map(body))
        #expect(try Encryption.anyFile(under: dir.path, holds: "respondent0@example.org") == nil)
    }

    @Test func aDirectoryWrittenInTheClearIsReadWithAKeyAndCompactionEncryptsIt() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await enqueue(dir, nil, count: 3)
        #expect(try Encryption.anyFile(under: dir.path, holds: "respondent0@example.org") != nil)
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: queueOptions(Encryption.keys(1)), logger: logger)
            defer { queue.close(then: {}) }  // when the block throws
            #expect(try queue.journal.segments().map(\.protection) == [.plain, .currentKey])
            _ = try await queue.enqueue(metadata(), body: body(3))
            _ = try await queue.compact()
            #expect(try queue.journal.segments().allSatisfy { $0.protection == .currentKey })
            await queue.close()
        }
        #expect(try await bodies(dir, Encryption.keys(1)) == (0..<4).map(body))
        #expect(try Encryption.anyFile(under: dir.path, holds: "respondent0@example.org") == nil)
        // Records in the clear after encrypted ones were not written by the journal: refused.
        let plain = try TemporaryDirectory()
        defer { plain.remove() }
        try await enqueue(plain, nil, count: 1)
        try Encryption.write(try Encryption.bytes(plain.path + "/" + (try Encryption.segmentNames(plain.path).first!)), to: dir.path + "/segment-ffffffffffffffff.log")
        let error = try #require(throws: StorageError.self) { try Journal.checkKeys(directory: dir.path, keys: Encryption.keys(1)) }
        #expect(error.message.contains("in the clear"))
    }
}

/// The key's bytes read from its file are zeroed once the key holds its own copy.
@Suite(.timeLimit(.minutes(2))) struct KeyBytesTests {
    @Test func wipingZeroesTheBytesInPlace() {
        var bytes: [UInt8] = Array(repeating: 0xA5, count: 32)
        let address = bytes.withUnsafeBytes { $0.baseAddress }
        KeyBytes.wipe(&bytes)
        #expect(bytes.withUnsafeBytes { $0.baseAddress } == address, "in place, not in a copy")
        #expect(bytes.allSatisfy { $0 == 0 })
        var data = Data(repeating: 0x5A, count: 44)
        KeyBytes.wipe(&data)
        #expect(data.allSatisfy { $0 == 0 })
    }

    @Test func whiteSpaceAroundABase64KeyIsTrimmed() {
        #expect(KeyBytes.trimmingWhiteSpace(Array(" \tabc=\n\r\n".utf8)) == Array("abc=".utf8))
        #expect(KeyBytes.trimmingWhiteSpace(Array(" \n".utf8)).isEmpty)
    }
}

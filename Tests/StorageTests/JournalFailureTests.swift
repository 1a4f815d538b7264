#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Storage
import SurveyTesting
import Synchronization
import Testing

private let logger = Logger(label: "journal-failures")

/// File operations that fail on demand, through the journal's seam; each fault lasts until it
/// is cleared.
final class Faults: Sendable {
    /// The errno every `write` fails with.
    let write = Mutex<Int32?>(nil)
    /// The next `write` writes half of its bytes (and returns that), then `write` faults are set.
    let shortWriteThen = Mutex<Int32?>(nil)
    let fdatasync = Mutex<Int32?>(nil)
    let fsync = Mutex<Int32?>(nil)
    /// Fails `open` with this errno for paths containing `openFailsFor`.
    let open = Mutex<(String, Int32)?>(nil)
    /// Paths opened, in order.
    let opened = Mutex<[String]>([])
    /// Calls failed on purpose so far (each a retry or probe that met the fault).
    let failed = Mutex(0)

    func clear() {
        write.withLock { $0 = nil }
        shortWriteThen.withLock { $0 = nil }
        fdatasync.withLock { $0 = nil }
        fsync.withLock { $0 = nil }
        open.withLock { $0 = nil }
    }

    var operations: JournalFileOperations {
        JournalFileOperations(
            write: { [self] fd, buffer in
                if let code = shortWriteThen.withLock({ code -> Int32? in defer { code = nil }; return code }) {
                    write.withLock { $0 = code }
                    return Glibc.write(fd, buffer.baseAddress, max(1, buffer.count / 2))
                }
                if let code = write.withLock({ $0 }) { errno = code; return -1 }
                return Glibc.write(fd, buffer.baseAddress, buffer.count)
            },
            fdatasync: { [self] fd in
                if let code = fdatasync.withLock({ $0 }) { failed.withLock { $0 += 1 }; errno = code; return -1 }
                return Glibc.fdatasync(fd)
            },
            fsync: { [self] fd in
                if let code = fsync.withLock({ $0 }) { failed.withLock { $0 += 1 }; errno = code; return -1 }
                return Glibc.fsync(fd)
            },
            open: { [self] path, flags, mode in
                opened.withLock { $0.append(path) }
                if let (part, code) = open.withLock({ $0 }), path.contains(part) { errno = code; return -1 }
                return Glibc.open(path, flags, mode)
            })
    }
}

private func options(_ faults: Faults, retry: Duration = .milliseconds(20), encrypted: Bool = false) -> JournalOptions {
    var o = JournalOptions()
    if encrypted { o.encryption = Encryption.keys(1) }
    o.fileOperations = faults.operations
    o.retryInterval = retry
    return o
}

private func payload(_ i: Int) -> [UInt8] { Array("record-\(i)-".utf8) + [UInt8](repeating: UInt8(i), count: 40) }


/// Reopens the journal and returns the payloads recovered; expects no recovery problem (a torn
/// tail would mean bytes of a failed append were left behind).
private func payloadsOnDisk(_ dir: TemporaryDirectory, encrypted: Bool = false) async throws -> [[UInt8]] {
    var o = JournalOptions()
    if encrypted { o.encryption = Encryption.keys(1) }
    let journal = try Journal(directory: dir.path, options: o, logger: logger)
    defer { journal.close(then: {}) }  // when it throws
    #expect(journal.recoveryReport.isEmpty, "\(journal.recoveryReport)")
    #expect(journal.recovered.map(\.sequence) == (0..<journal.recovered.count).map { UInt64($0 + 1) }, "sequence numbers go on without a gap")
    let result = journal.recovered.map(\.payload)
    await journal.close()
    return result
}

@Suite(.timeLimit(.minutes(5))) struct JournalFailureTests {
    @Test(arguments: [false, true])
    func aWriteFailingWithENOSPCRefusesAppendsUntilWritesSucceedAgain(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = Faults()
        let journal = try Journal(directory: dir.path, options: options(faults, encrypted: encrypted), logger: logger)
        for i in 1...3 { _ = try await journal.append(type: 1, payload: payload(i)) }
        #expect(journal.currentFailure == nil)
        faults.write.withLock { $0 = ENOSPC }
        let refused = await #expect(throws: StorageError.self) { try await journal.append(type: 1, payload: payload(99)) }
        #expect(refused?.code == .failedClosed)
        #expect(refused?.message.contains(dir.path) == true && refused?.message.contains("ENOSPC") == true, "\(refused?.message ?? "")")
        let failure = try #require(journal.currentFailure)
        #expect(failure.call == "write" && failure.errnoName == "ENOSPC" && failure.errno == ENOSPC)
        #expect(failure.since <= Date())
        // Still full: the next append is refused too, and the failure keeps its start.
        await #expect(throws: StorageError.self) { try await journal.append(type: 1, payload: payload(98)) }
        #expect(journal.currentFailure?.since == failure.since)
        // Space comes back: the journal finds out by itself.
        faults.clear()
        try await waitUntilItWritesAgain(journal)
        #expect(try await journal.append(type: 1, payload: payload(4)) == 4)
        await journal.close()
        await #expect(try payloadsOnDisk(dir, encrypted: encrypted) == (1...4).map(payload))
    }

    @Test(arguments: [false, true])
    func aShortWriteThenAnErrorLeavesNothingOfTheFailedAppendsOnDisk(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = Faults()
        let journal = try Journal(directory: dir.path, options: options(faults, encrypted: encrypted), logger: logger)
        let first = try await journal.appendLocated(type: 1, payload: payload(1))
        let segment = dir.path + "/" + first.segment
        let acknowledgedEnd = first.offset + 21 + payload(1).count + (encrypted ? 16 : 0)
        let preallocated = Journal.testingFileSize(segment)
        faults.shortWriteThen.withLock { $0 = ENOSPC }
        // Several appends at once, so that the half written may hold whole frames of the batch.
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 10..<16 { group.addTask { (try? await journal.append(type: 1, payload: payload(i))) != nil } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { !$0 }, "nothing is acknowledged without durability")
        #expect(journal.currentFailure?.errnoName == "ENOSPC")
        // Cut back to the acknowledged record and preallocated again: zeros after it.
        #expect(Journal.testingFileSize(segment) == preallocated)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        #expect(bytes.count > acknowledgedEnd && bytes[acknowledgedEnd...] == Data(count: bytes.count - acknowledgedEnd), "the half-written batch was cut back")
        faults.clear()
        #expect(try await journal.append(type: 1, payload: payload(2)) == 2)
        #expect(journal.currentFailure == nil)
        await journal.close()
        await #expect(try payloadsOnDisk(dir, encrypted: encrypted) == [payload(1), payload(2)])
    }

    @Test(arguments: [false, true])
    func aFailedFdatasyncIsNotTrustedTheSegmentIsReopenedAndNothingAcknowledgedIsLost(encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = Faults()
        var o = options(faults, retry: .seconds(3600), encrypted: encrypted)
        o.deferredSyncInterval = .seconds(3600)
        let journal = try Journal(directory: dir.path, options: o, logger: logger)
        _ = try await journal.append(type: 1, payload: payload(1))
        // Acknowledged before its fdatasync: the failed sync below covers it.
        let deferred = try await journal.appendLocated(type: 1, payload: payload(2), kind: .deferredMarker)
        let segment = try journal.segments().last!.name
        let opensBefore = faults.opened.withLock { $0.filter { $0.hasSuffix(segment) }.count }
        faults.fdatasync.withLock { $0 = EIO }
        let refused = await #expect(throws: StorageError.self) { try await journal.append(type: 1, payload: payload(99)) }
        #expect(refused?.message.contains("EIO") == true)
        #expect(journal.currentFailure?.call == "fdatasync" && journal.currentFailure?.errnoName == "EIO")
        // The segment was reopened (not written again through the descriptor whose sync failed).
        #expect(faults.opened.withLock { $0.filter { $0.hasSuffix(segment) }.count } > opensBefore)
        // The record acknowledged before the failed sync was written again where it was.
        #expect(try journal.read(at: deferred).payload == payload(2))
        // Each append tries again: once syncs succeed, the next one is accepted at once (the
        // interval is an hour here).
        faults.clear()
        #expect(try await journal.append(type: 1, payload: payload(3)) == 3)
        #expect(journal.currentFailure == nil)
        await journal.close()
        await #expect(try payloadsOnDisk(dir, encrypted: encrypted) == (1...3).map(payload))
    }

    @Test func relaxedModeKeepsWhatItAcknowledgedWhenASyncFails() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = Faults()
        var o = options(faults)
        o.durability = .relaxed(syncInterval: .seconds(3600))
        let journal = try Journal(directory: dir.path, options: o, logger: logger)
        for i in 1...3 { _ = try await journal.append(type: 1, payload: payload(i)) }
        faults.fdatasync.withLock { $0 = EIO }
        // A record that waits for its sync: the sync fails, the record is refused.
        await #expect(throws: StorageError.self) { try await journal.appendLocated(type: 1, payload: payload(99), kind: .carriedCopy) }
        #expect(journal.currentFailure?.errnoName == "EIO")
        // The probe fails while syncs fail; the journal keeps refusing (two more probes met the fault).
        let before = faults.failed.withLock { $0 }
        #expect(await eventually { faults.failed.withLock { $0 } >= before + 2 })
        #expect(journal.currentFailure != nil)
        faults.clear()
        try await waitUntilItWritesAgain(journal)
        _ = try await journal.append(type: 1, payload: payload(4))
        await journal.close()
        await #expect(try payloadsOnDisk(dir) == (1...4).map(payload))
    }

    @Test func aRestoreThatFailsIsTriedAgainAndTheOutageKeepsItsStart() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = Faults()
        let journal = try Journal(directory: dir.path, options: options(faults), logger: logger)
        _ = try await journal.append(type: 1, payload: payload(1))
        faults.fdatasync.withLock { $0 = EIO }
        faults.fsync.withLock { $0 = EIO }
        await #expect(throws: StorageError.self) { try await journal.append(type: 1, payload: payload(99)) }
        let first = try #require(journal.currentFailure)
        // The restore's fsync failed too: that is the cause shown now, since the same time.
        #expect(first.call == "fsync" && first.errnoName == "EIO")
        // Two more restores met the fault: the outage still dates from its start.
        let before = faults.failed.withLock { $0 }
        #expect(await eventually { faults.failed.withLock { $0 } >= before + 2 })
        #expect(journal.currentFailure?.since == first.since)
        faults.clear()
        try await waitUntilItWritesAgain(journal)
        #expect(try await journal.append(type: 1, payload: payload(2)) == 2)
        await journal.close()
        await #expect(try payloadsOnDisk(dir) == [payload(1), payload(2)])
    }

    @Test func aSegmentThatCannotBeCreatedLeavesTheJournalOnItsOldOne() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let faults = Faults()
        var o = options(faults)
        o.segmentSize = 200
        let journal = try Journal(directory: dir.path, options: o, logger: logger)
        var acknowledged: [[UInt8]] = []
        for i in 1...3 {
            _ = try await journal.append(type: 1, payload: payload(i))
            acknowledged.append(payload(i))
        }
        faults.open.withLock { $0 = ("segment-", ENOSPC) }
        await #expect(throws: StorageError.self) {
            for i in 4...20 { _ = try await journal.append(type: 1, payload: payload(i)); acknowledged.append(payload(i)) }
        }
        #expect(journal.currentFailure?.call == "open")
        faults.clear()
        try await waitUntilItWritesAgain(journal)
        _ = try await journal.append(type: 1, payload: payload(50))
        acknowledged.append(payload(50))
        await journal.close()
        await #expect(try payloadsOnDisk(dir) == acknowledged)
    }

    /// A real file system that fills up: a 256 KiB tmpfs. Needs the right to mount (root), and
    /// is skipped where mounting is refused.
    @Test(.enabled(if: Tmpfs.canMount, "mounting a tmpfs is refused here: it needs root and the right to mount"))
    func aFullTmpfsRefusesAppendsAndTheJournalResumesOnceSpaceIsFreed() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try Tmpfs.mount(size: "256k", at: dir.path)
        defer { umount2(dir.path, Int32(MNT_DETACH)) }
        var o = JournalOptions()
        o.retryInterval = .milliseconds(20)
        let journal = try Journal(directory: dir.path + "/journal", options: o, logger: logger)
        defer { journal.close(then: {}) }
        var acknowledged: [[UInt8]] = []
        for i in 1...5 {
            _ = try await journal.append(type: 1, payload: payload(i))
            acknowledged.append(payload(i))
        }
        let filler = dir.path + "/filler"
        try fill(filler)
        let refusal = await appendUntilRefused(journal, 6..<1000, payload: { [UInt8](repeating: UInt8($0 & 0xFF), count: 3000) }, acknowledged: &acknowledged)
        #expect(refusal?.code == .failedClosed)
        #expect(journal.currentFailure?.errnoName == "ENOSPC", "\(String(describing: journal.currentFailure))")
        unlink(filler)
        try await waitUntilItWritesAgain(journal)
        _ = try await journal.append(type: 1, payload: payload(7))
        acknowledged.append(payload(7))
        await journal.close()
        let reopened = try Journal(directory: dir.path + "/journal", logger: logger)
        defer { reopened.close(then: {}) }
        #expect(reopened.recoveryReport.isEmpty, "\(reopened.recoveryReport)")
        #expect(reopened.recovered.map(\.payload) == acknowledged)
    }
}

/// Writes to `path` until the file system is full.
func fill(_ path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { throw SystemCallFailure(call: "open") }
    defer { close(fd) }
    let chunk = [UInt8](repeating: 0xAB, count: 4096)
    while chunk.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) > 0 {}
}

struct SystemCallFailure: Error { var call: String }

extension Journal {
    static func testingFileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : -1
    }
}

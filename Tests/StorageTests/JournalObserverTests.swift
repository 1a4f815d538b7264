#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Storage
import SurveyTesting
import Synchronization
import Testing

/// The observer sees every record written, with its bytes, and every successful fdatasync; a
/// write that fails is not reported as appended.
@Suite(.timeLimit(.minutes(5))) struct JournalObserverTests {
    final class Tally: JournalObserver {
        let counts = Mutex((records: 0, bytes: 0, syncs: 0))
        func appended(records: Int, bytes: Int) { counts.withLock { $0.records += records; $0.bytes += bytes } }
        func synced(after duration: Duration) {
            precondition(duration >= .zero)
            counts.withLock { $0.syncs += 1 }
        }
    }

    @Test func everyRecordAndEverySyncIsReported() async throws {
        let dir = try TemporaryDirectory(prefix: "jo")
        defer { dir.remove() }
        let tally = Tally()
        var options = JournalOptions()
        options.observer = tally
        let journal = try Journal(directory: dir.path, options: options, logger: Logger(label: "observer"))
        for i in 0..<5 { _ = try await journal.append(type: 1, payload: Array("record \(i)".utf8)) }
        let counts = tally.counts.withLock { $0 }
        #expect(counts.records == 5)
        // Strict mode: each acknowledged append was covered by an fdatasync.
        #expect(counts.syncs >= 1 && counts.syncs <= 5)
        #expect(counts.bytes == journal.diskBytes)
        await journal.close()
    }

    final class Switch: Sendable {
        let on = Mutex(false)
    }

    @Test func aFailedWriteIsNotCountedAsAppended() async throws {
        let dir = try TemporaryDirectory(prefix: "jf")
        defer { dir.remove() }
        let tally = Tally()
        let failing = Switch()
        var options = JournalOptions()
        options.observer = tally
        options.retryInterval = .milliseconds(20)
        options.fileOperations.write = { fd, buffer in
            if failing.on.withLock({ $0 }) { errno = ENOSPC; return -1 }
            return Glibc.write(fd, buffer.baseAddress, buffer.count)
        }
        let journal = try Journal(directory: dir.path, options: options, logger: Logger(label: "observer"))
        _ = try await journal.append(type: 1, payload: Array("kept".utf8))
        failing.on.withLock { $0 = true }
        await #expect(throws: StorageError.self) { _ = try await journal.append(type: 1, payload: Array("refused".utf8)) }
        #expect(tally.counts.withLock { $0.records } == 1)
        failing.on.withLock { $0 = false }
        await journal.close()
    }
}

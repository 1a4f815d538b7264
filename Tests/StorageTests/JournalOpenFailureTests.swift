#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Storage
import SurveyTesting
import Testing

/// An opening that fails, whatever system call fails, leaves no descriptor open behind it (the
/// lock file's, a segment's, a temporary header's), so that a daemon that could not start can be
/// started again in the same process.
@Suite(.timeLimit(.minutes(5))) struct JournalOpenFailureTests {
    static let calls = ["open", "write", "fsync", "fdatasync", "fallocate", "ftruncate", "lseek", "rename", "flock", "fstat", "pread", "listDirectory"]

    @Test(arguments: calls, [false, true])
    func aFailedOpeningClosesWhatItOpened(call: String, encrypted: Bool) async throws {
        let dir = try TemporaryDirectory(prefix: "jof")
        defer { dir.remove() }
        var options = JournalOptions()
        options.encryption = encrypted ? Encryption.keys(1) : nil
        // Something to recover and a segment to reopen.
        do {
            let journal = try Journal(directory: dir.path, options: options, logger: Logger(label: "t"))
            _ = try await journal.append(type: 1, payload: Array("before".utf8))
            await journal.close()
        }
        let faults = FileFaults()
        faults.fail(call, .containing("segment-"), with: EIO)
        options.fileOperations = faults.operations
        options.retryInterval = .milliseconds(20)
        do {
            let journal = try Journal(directory: dir.path, options: options, logger: Logger(label: "t"))
            // It opened despite the fault (the call is not made while opening, or its failure is
            // handled): closing leaves nothing open either.
            await journal.close()
        } catch {
            // Refused: what it opened is closed.
        }
        #expect(faults.openDescriptors.isEmpty, "\(call): left open \(faults.openDescriptors)")
        // And the directory opens again.
        faults.clear()
        let again = try Journal(directory: dir.path, options: options, logger: Logger(label: "t"))
        await again.close()
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Storage
import SurveyTesting
import Synchronization
import Testing

/// The seam's checked copy: every system call of the seam asks the check first.
@Suite(.timeLimit(.minutes(5))) struct CheckedFileOperationsTests {
    /// Operations that do nothing and succeed, so that each can be called with harmless values.
    static let inert = JournalFileOperations(
        write: { _, buf in buf.count }, fdatasync: { _ in 0 }, fsync: { _ in 0 }, ftruncate: { _, _ in 0 },
        fallocate: { _, _, _ in 0 }, lseek: { _, offset in offset },
        open: { _, _, _ in 3 }, close: { _ in 0 }, pread: { _, _, _ in 0 }, rename: { _, _ in 0 },
        unlink: { _ in 0 }, mkdir: { _, _ in 0 }, fchmod: { _, _ in 0 }, chmod: { _, _ in 0 },
        fstat: { _, _ in 0 }, lstat: { _, _ in 0 }, stat: { _, _ in 0 }, flock: { _, _ in 0 },
        listDirectory: { _ in [] })

    @Test func theNamesAreEveryCallOfTheSeam() {
        let stored = Mirror(reflecting: JournalFileOperations()).children.compactMap(\.label)
        #expect(stored.sorted() == JournalFileOperations.checkedCallNames.sorted(), "a call added to the seam is added to checkingCalls too")
    }

    @Test func eachCallAsksTheCheckWithItsNameBeforeItRuns() {
        let asked = Mutex<[String]>([])
        let ops = Self.inert.checkingCalls { name in asked.withLock { $0.append(name) } }
        var st = Glibc.stat()
        var byte: UInt8 = 0
        _ = withUnsafeBytes(of: byte) { ops.write(3, $0) }
        _ = ops.fdatasync(3)
        _ = ops.fsync(3)
        _ = ops.ftruncate(3, 0)
        _ = ops.fallocate(3, 0, 4096)
        _ = ops.lseek(3, 0)
        _ = ops.open("/nonexistent", O_RDONLY, 0)
        _ = ops.close(3)
        _ = withUnsafeMutableBytes(of: &byte) { ops.pread(3, $0, 0) }
        _ = ops.rename("a", "b")
        _ = ops.unlink("a")
        _ = ops.mkdir("a", 0o700)
        _ = ops.fchmod(3, 0o600)
        _ = ops.chmod("a", 0o600)
        _ = ops.fstat(3, &st)
        _ = ops.lstat("a", &st)
        _ = ops.stat("a", &st)
        _ = ops.flock(3, LOCK_EX)
        _ = ops.listDirectory("a")
        #expect(asked.withLock { $0 } == JournalFileOperations.checkedCallNames)
    }

    @Test func theCheckedCopyStillMakesTheCalls() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let asked = Mutex(0)
        let ops = JournalFileOperations().checkingCalls { _ in asked.withLock { $0 += 1 } }
        let cache = try DefinitionCache(directory: dir.path + "/cache", operations: ops)
        let hash = try cache.store(typeID: "common", language: "en", bytes: Array("{}".utf8))
        #expect(try cache.definition(hash: hash)?.bytes == Array("{}".utf8))
        #expect(asked.withLock { $0 } > 0)
    }
}

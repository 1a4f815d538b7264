#if canImport(Glibc)
import Glibc
#endif
import Storage
import SurveyTesting
import Synchronization
import Testing

/// A file system that fails on demand, through the Storage seam (`JournalFileOperations`): each
/// fault names a system call, the paths it concerns (for calls on a descriptor, the path the
/// descriptor was opened with) and the errno, and lasts until cleared. Every call is logged.
final class FileFaults: Sendable {
    enum Paths: Sendable {
        case any
        case containing(String)
        case exactly(String)

        func match(_ path: String?) -> Bool {
            switch self {
            case .any: true
            case .containing(let part): path?.contains(part) ?? false
            case .exactly(let whole): path == whole
            }
        }
    }

    private let faults = Mutex<[(call: String, paths: Paths, errno: Int32)]>([])
    /// The path each open descriptor was opened with.
    private let openPaths = Mutex<[Int32: String]>([:])
    /// When set, every `write` writes at most this many bytes (a short write).
    let writeLimit = Mutex<Int?>(nil)
    /// The calls made, by name.
    let calls = Mutex<Set<String>>([])

    func fail(_ call: String, _ paths: Paths = .any, with code: Int32) {
        faults.withLock { $0.append((call, paths, code)) }
    }

    func clear() {
        faults.withLock { $0 = [] }
        writeLimit.withLock { $0 = nil }
    }

    /// Logs the call; when a fault matches one of `paths`, sets errno and returns true.
    private func faulted(_ call: String, _ paths: String?...) -> Bool {
        calls.withLock { _ = $0.insert(call) }
        guard let code = faults.withLock({ list in list.first { $0.call == call && paths.contains(where: $0.paths.match) }?.errno }) else { return false }
        errno = code
        return true
    }

    private func path(_ fd: Int32) -> String? { openPaths.withLock { $0[fd] } }

    /// The descriptors opened through these operations and not closed yet, with their paths.
    var openDescriptors: [Int32: String] { openPaths.withLock { $0 } }

    var operations: JournalFileOperations {
        JournalFileOperations(
            write: { [self] fd, buffer in
                if faulted("write", path(fd)) { return -1 }
                let count = min(buffer.count, writeLimit.withLock { $0 } ?? buffer.count)
                return Glibc.write(fd, buffer.baseAddress, count)
            },
            fdatasync: { [self] fd in faulted("fdatasync", path(fd)) ? -1 : Glibc.fdatasync(fd) },
            fsync: { [self] fd in faulted("fsync", path(fd)) ? -1 : Glibc.fsync(fd) },
            ftruncate: { [self] fd, length in faulted("ftruncate", path(fd)) ? -1 : Glibc.ftruncate(fd, off_t(length)) },
            fallocate: { [self] fd, offset, length in faulted("fallocate", path(fd)) ? -1 : JournalFileOperations.systemFallocate(fd, offset, length) },
            lseek: { [self] fd, offset in faulted("lseek", path(fd)) ? -1 : Int(Glibc.lseek(fd, off_t(offset), SEEK_SET)) },
            open: { [self] path, flags, mode in
                if faulted("open", path) { return -1 }
                let fd = Glibc.open(path, flags, mode)
                if fd >= 0 { openPaths.withLock { $0[fd] = path } }
                return fd
            },
            close: { [self] fd in
                _ = faulted("close", path(fd))
                openPaths.withLock { _ = $0.removeValue(forKey: fd) }
                return Glibc.close(fd)
            },
            pread: { [self] fd, buffer, offset in faulted("pread", path(fd)) ? -1 : Glibc.pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) },
            rename: { [self] from, to in faulted("rename", from, to) ? -1 : Glibc.rename(from, to) },
            unlink: { [self] path in faulted("unlink", path) ? -1 : Glibc.unlink(path) },
            mkdir: { [self] path, mode in faulted("mkdir", path) ? -1 : Glibc.mkdir(path, mode) },
            fchmod: { [self] fd, mode in faulted("fchmod", path(fd)) ? -1 : Glibc.fchmod(fd, mode) },
            chmod: { [self] path, mode in faulted("chmod", path) ? -1 : Glibc.chmod(path, mode) },
            fstat: { [self] fd, st in faulted("fstat", path(fd)) ? -1 : Glibc.fstat(fd, &st) },
            lstat: { [self] path, st in faulted("lstat", path) ? -1 : Glibc.lstat(path, &st) },
            stat: { [self] path, st in faulted("stat", path) ? -1 : JournalFileOperations().stat(path, &st) },
            flock: { [self] fd, operation in faulted("flock", path(fd)) ? -1 : JournalFileOperations().flock(fd, operation) },
            listDirectory: { [self] path in faulted("listDirectory", path) ? nil : JournalFileOperations.systemListDirectory(path) })
    }
}

/// Waits (up to the `eventually` bound) until the journal accepts appends again on its own,
/// without an append.
func waitUntilItWritesAgain(_ journal: Journal) async throws {
    #expect(await eventually(every: .milliseconds(10)) { journal.currentFailure == nil }, "the journal did not recover by itself")
}

/// Appends `payload(i)` for each `i` in `range` until one is refused, adding every acknowledged
/// payload to `acknowledged`; returns the refusal (nil when none was refused).
func appendUntilRefused(_ journal: Journal, _ range: some Sequence<Int>, payload: (Int) -> [UInt8], acknowledged: inout [[UInt8]]) async -> StorageError? {
    for i in range {
        do {
            _ = try await journal.append(type: 1, payload: payload(i))
            acknowledged.append(payload(i))
        } catch let error as StorageError {
            return error
        } catch {
            Issue.record("an append failed with \(error), not a StorageError")
            return nil
        }
    }
    return nil
}

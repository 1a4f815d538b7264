// The baselines of the durable append rows: a plain `write` + `fdatasync` loop of the journal's
// record size, on a file that grows with each write and on one made its full size first (as the
// journal's active segment is), each with the device bytes it costs.
#if canImport(Glibc)
import Glibc
#endif
import BenchmarkSupport
import Foundation

enum PlainLoop {
    /// How the file is prepared before the timed part.
    enum File: String {
        /// Empty: each write extends it (its size, and so the inode, change with every write).
        case growing = "growing file"
        /// `fallocate`d to 64 MiB first (as the journal's segments are).
        case fallocated = "fallocated file"
        /// 64 MiB of zeros written and fdatasync'd first.
        case zeroFilled = "zero-filled file"
    }

    static let preallocated = 64 << 20

    /// Writes `record` bytes with one `write` (at the tracked offset) and one `fdatasync` each,
    /// for `duration`, to a new file at `path` (removed afterwards).
    static func run(path: String, record: Int, duration: Duration, file: File, device: DeviceWrites?) async throws -> Measured {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchmarkError("cannot create \(path): errno \(errno)") }
        defer { close(fd); unlink(path) }
        switch file {
        case .growing:
            break
        case .fallocated:
            // posix_fallocate is fallocate(fd, 0, …) where the file system has it (ext4 does).
            let code = posix_fallocate(fd, 0, off_t(preallocated))
            guard code == 0 else { throw BenchmarkError("posix_fallocate of \(path) failed: errno \(code)") }
            guard fsync(fd) == 0 else { throw BenchmarkError("fsync of \(path) failed: errno \(errno)") }
        case .zeroFilled:
            let zeros = [UInt8](repeating: 0, count: 1 << 20)
            for _ in 0..<(preallocated >> 20) {
                guard zeros.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == zeros.count else { throw BenchmarkError("writing zeros to \(path) failed: errno \(errno)") }
            }
            guard fsync(fd) == 0 else { throw BenchmarkError("fsync of \(path) failed: errno \(errno)") }
        }
        let bytes = [UInt8](repeating: 0x61, count: record)
        let clock = ContinuousClock()
        let ((count, seconds), deviceBytes) = try await device.measure { () async throws -> (Int, Double) in
            let start = clock.now
            var count = 0
            var offset = 0
            while clock.now - start < duration, offset + record <= preallocated {
                let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
                guard written == record, fdatasync(fd) == 0 else { throw BenchmarkError("write or fdatasync to \(path) failed: errno \(errno)") }
                offset += record
                count += 1
            }
            return (count, (clock.now - start).seconds)
        }
        return Measured(count: count, seconds: seconds, deviceBytes: deviceBytes)
    }
}

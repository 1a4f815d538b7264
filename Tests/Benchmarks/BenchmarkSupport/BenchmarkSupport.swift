// Shared by the benchmark executables: the disk's serial limit, resident memory, table cells.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

public enum BenchmarkSupport {
    /// Appends `record` bytes with one `write` and one `fdatasync` per record for `duration`, to a
    /// new file at `path` (removed afterwards); returns records per second. It is the disk's serial
    /// limit for durable writes of that size, the baseline the journal is compared with.
    public static func fdatasyncLoop(path: String, record: Int, duration: Duration) throws -> Double {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchmarkError("cannot create \(path): errno \(errno)") }
        defer { close(fd); unlink(path) }
        let bytes = [UInt8](repeating: 0x61, count: record)
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        while clock.now - start < duration {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == record, fdatasync(fd) == 0 else { throw BenchmarkError("write or fdatasync to \(path) failed: errno \(errno)") }
            count += 1
        }
        return Double(count) / (clock.now - start).seconds
    }

    /// A field of `/proc/<pid>/status` in megabytes (`VmRSS` resident now, `VmHWM` the peak);
    /// NaN when it cannot be read.
    public static func memoryMegabytes(pid: Int32? = nil, field: String = "VmRSS") -> Double {
        let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
              let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return .nan }
        return kilobytes / 1024
    }

    /// CPU time (user plus system) a process has used so far, in seconds, from
    /// `/proc/<pid>/stat`; NaN when it cannot be read. Without `pid`, this process.
    public static func cpuSeconds(pid: Int32? = nil) -> Double {
        let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
        // The command name, in parentheses, may hold spaces: fields are counted after its ")".
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), let close = text.lastIndex(of: ")") else { return .nan }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After ")": state is field 3 of stat(5), so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// A rate or count without decimals, e.g. `12345`.
    public static func whole(_ value: Double) -> String { String(format: "%.0f", value) }

    /// A ratio with two decimals, e.g. `0.93`.
    public static func ratio(_ value: Double) -> String { String(format: "%.2f", value) }
}

/// A benchmark that cannot go on, with what went wrong.
public struct BenchmarkError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension Duration {
    /// The duration in seconds, as a Double.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

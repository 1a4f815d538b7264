// Bytes written to the block device under a directory, from /proc/diskstats: what a durable
// append costs the disk (data page, inode, file system journal), which on an SD card or eMMC is
// wear as well as time. The device is found from the directory's st_dev (major:minor, as
// /sys/dev/block/M:m names it; a partition has its own line); on tmpfs and other file systems
// without a block device there is none.
#if canImport(Glibc)
import Glibc
#endif
import BenchmarkSupport
import Foundation

struct DeviceWrites {
    let major: UInt64
    let minor: UInt64
    /// The device's name in /proc/diskstats (`vda`, `sda2`, `mmcblk0p2`).
    let name: String

    /// The block device holding `directory`; nil when it has none (tmpfs, overlay without one).
    init?(directory: String) {
        var st = stat()
        guard stat(directory, &st) == 0 else { return nil }
        let dev = UInt64(st.st_dev)
        // glibc's gnu_dev_major / gnu_dev_minor.
        major = ((dev >> 8) & 0xFFF) | ((dev >> 32) & ~UInt64(0xFFF))
        minor = (dev & 0xFF) | ((dev >> 12) & ~UInt64(0xFF))
        guard major != 0, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/sys/dev/block/\(major):\(minor)") else { return nil }
        name = (target as NSString).lastPathComponent
        guard sectorsWritten() != nil else { return nil }
    }

    /// Sectors (512 bytes) written to the device since boot: field 10 of its /proc/diskstats line.
    func sectorsWritten() -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/diskstats", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, UInt64(fields[0]) == major, UInt64(fields[1]) == minor else { continue }
            return UInt64(fields[9])
        }
        return nil
    }

    /// Runs `body` and returns its result with the bytes written to the device meanwhile (nil
    /// without a device). Everything written to the device counts, the neighbours' writes too.
    func measure<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> (T, bytes: Double?) {
        let before = sectorsWritten()
        let result = try await body()
        guard let before, let after = sectorsWritten() else { return (result, nil) }
        return (result, Double(after - before) * 512)
    }
}

extension Optional where Wrapped == DeviceWrites {
    /// `measure` of the device, or the body alone (bytes nil) without one.
    func measure<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> (T, bytes: Double?) {
        guard let device = self else { return (try await body(), nil) }
        return try await device.measure(body)
    }
}

/// A rate of durable writes with the device bytes they cost.
struct Measured {
    var count = 0
    var seconds = 0.0
    /// Bytes written to the device over the timed part; nil without a device.
    var deviceBytes: Double? = 0

    var rate: Double { Double(count) / seconds }
    /// Device bytes per durable write.
    var bytesPerWrite: Double? { deviceBytes.map { $0 / Double(max(count, 1)) } }

    /// Both measures together, as one longer run.
    static func + (a: Measured, b: Measured) -> Measured {
        Measured(count: a.count + b.count, seconds: a.seconds + b.seconds, deviceBytes: a.deviceBytes.flatMap { x in b.deviceBytes.map { x + $0 } })
    }

    /// Device bytes per write as a table cell: `4301 B`, or `n/a`.
    var bytesCell: String { bytesPerWrite.map { "\(BenchmarkSupport.whole($0)) B" } ?? "n/a" }
}

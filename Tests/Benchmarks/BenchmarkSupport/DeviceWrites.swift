// Bytes written to the block device under a directory, from the kernel's own count.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The block device that holds a directory, and what has been written to it so far: the sectors
/// written in `/proc/diskstats` (always counted in 512-byte units) times 512. The device is found
/// from the directory's `st_dev` through `/sys/dev/block/MAJOR:MINOR`, whose link names it (a
/// partition, `vda1`, has a line of its own in `/proc/diskstats`).
///
/// The count is the whole device's: everything any process writes to it in the same time is in
/// it too, the file system's own journal included. ``idleRate(seconds:)`` measures what the rest
/// of the machine writes while the caller does nothing.
public struct DeviceWrites: Sendable {
    /// The device's name as in `/proc/diskstats`, e.g. `vda`.
    public let name: String

    /// The device under `path`; nil when there is none (tmpfs, overlay, a network file system)
    /// or `/sys` and `/proc` cannot be read.
    public init?(under path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let device = UInt64(info.st_dev)
        // glibc's gnu_dev_major and gnu_dev_minor, spelled out (they are macros in C).
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
        let minor = (device & 0xff) | ((device >> 12) & ~UInt64(0xff))
        guard major != 0,
              let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/sys/dev/block/\(major):\(minor)"),
              let last = target.split(separator: "/").last
        else { return nil }
        name = String(last)
        guard Self.sectorsWritten(device: name) != nil else { return nil }
    }

    /// Bytes written to the device since it was brought up; nil when `/proc/diskstats` has no line for it.
    public func bytesWritten() -> Double? {
        Self.sectorsWritten(device: name).map { Double($0) * 512 }
    }

    /// Bytes per second written to the device over `seconds` while this process writes nothing:
    /// what the rest of the machine adds to a measurement.
    public func idleRate(seconds: Double) -> Double? {
        guard let before = bytesWritten() else { return nil }
        let clock = ContinuousClock()
        let start = clock.now
        Thread.sleep(forTimeInterval: seconds)
        guard let after = bytesWritten() else { return nil }
        return (after - before) / (clock.now - start).seconds
    }

    /// Field 10 of the device's line in `/proc/diskstats` (major, minor, name, then reads
    /// completed, reads merged, sectors read, time reading, writes completed, writes merged,
    /// sectors written).
    static func sectorsWritten(device: String) -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/diskstats", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count > 9, fields[2] == device { return UInt64(fields[9]) }
        }
        return nil
    }
}

// What a durable append costs the disk (data page, inode, file system journal), which on an SD
// card or eMMC is wear as well as time: bytes written to the device under the benchmark's
// directory (BenchmarkSupport's `DeviceWrites`) over a timed part.
import BenchmarkSupport
import Foundation

extension DeviceWrites {
    /// Runs `body` and returns its result with the bytes written to the device meanwhile (nil
    /// when the count cannot be read). Everything written to the device counts, the neighbours'
    /// writes too.
    func measure<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> (T, bytes: Double?) {
        let before = bytesWritten()
        let result = try await body()
        guard let before, let after = bytesWritten() else { return (result, nil) }
        return (result, after - before)
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

#if canImport(Glibc)
import Glibc
#endif
import BenchmarkSupport
import Foundation
import Logging

/// `GET /v1/queue/export` of a large queue, measured from outside: the daemon's resident memory
/// while it streams every pending submission, beside the same daemon idle with that queue.
extension DaemonBenchmark {
    static func measureExport(count: Int) async throws {
        let surveyd = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("surveyd")
        guard FileManager.default.isExecutableFile(atPath: surveyd.path) else {
            throw BenchmarkError("\(surveyd.path) is missing; run `swift build -c release --product surveyd` first")
        }
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("svbench-export-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        print("# DaemonBenchmark --export \(count), \(Date().formatted(.iso8601)), \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(loadAverage())\n")
        try await fillQueue(directory: work + "/state/queue", count: count, logger: logger)
        // Port 9 of loopback: nothing answers there, so nothing is delivered meanwhile.
        let daemon = try await Daemon(binary: surveyd, directory: work, serverURL: "http://127.0.0.1:9", inFlight: inFlight)
        defer { Task { await daemon.stop() } }
        try await daemon.waitReady()
        // Settled after the opening (its replay's freed memory is given back).
        try await Task.sleep(for: .seconds(2))
        let idle = daemon.residentMegabytes()
        let sampler = Task.detached { () -> Double in
            var peak = 0.0
            while !Task.isCancelled {
                peak = max(peak, BenchmarkSupport.memoryMegabytes(pid: daemon.pid))
                try? await Task.sleep(for: .milliseconds(10))
            }
            return peak
        }
        let clock = ContinuousClock()
        let start = clock.now
        let (bytes, lines) = try await Task.detached { try streamExport(socket: daemon.socket) }.value
        let seconds = (clock.now - start).seconds
        sampler.cancel()
        let peak = max(await sampler.value, daemon.residentMegabytes())
        await daemon.stop()
        guard lines == count else { throw BenchmarkError("the export had \(lines) lines for \(count) pending") }
        print("| measure | value | baseline | difference | goal |")
        print("|---|---|---|---|---|")
        print("| daemon RSS exporting \(count) pending (peak, sampled every 10 ms) | \(String(format: "%.1f", peak)) MB | idle with them \(String(format: "%.1f", idle)) MB | +\(String(format: "%.1f", peak - idle)) MB | ≤ +20 MB |")
        print("| export | \(String(format: "%.1f", Double(bytes) / 1e6)) MB in \(String(format: "%.1f", seconds)) s | | | |")
    }

    /// Reads `GET /v1/queue/export` from the control socket to its end, keeping nothing; returns
    /// the bytes read and the submissions in them.
    static func streamExport(socket path: String) throws -> (bytes: Int, lines: Int) {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchmarkError("socket: errno \(errno)") }
        defer { Glibc.close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8.prefix(raw.count - 1)))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw BenchmarkError("connect to \(path): errno \(errno)") }
        let request = Array("GET /v1/queue/export HTTP/1.1\r\nHost: surveyd\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { throw BenchmarkError("send: errno \(errno)") }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        // Submissions counted by their key's field name (which holds no second quote, so a
        // match restarts cleanly), across reads and whatever chunking.
        let field = Array("\"idempotencyKey\"".utf8)
        var matched = 0
        var entries = 0
        var head: [UInt8] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n >= 0 else { throw BenchmarkError("recv: errno \(errno)") }
            if n == 0 { break }
            if total < 64 { head += buffer[0..<min(n, 64)] }
            total += n
            for byte in buffer[0..<n] {
                if byte == field[matched] {
                    matched += 1
                    if matched == field.count { entries += 1; matched = 0 }
                } else {
                    matched = byte == field[0] ? 1 : 0
                }
            }
        }
        guard String(decoding: head.prefix(12), as: UTF8.self).hasSuffix("200") else {
            throw BenchmarkError("the export answered \(String(decoding: head, as: UTF8.self))")
        }
        return (total, entries)
    }
}

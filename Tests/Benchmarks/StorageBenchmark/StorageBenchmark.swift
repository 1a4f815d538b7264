#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import BenchmarkSupport
import Foundation
import Logging
import ProcessTesting
import Storage

/// The Storage module measured against the disk, in one run on one directory:
/// - serial durable appends per second, without and with encryption, beside a plain
///   `write`+`fdatasync` loop of the same record size on a growing file (goal: at least 1.2 times
///   it) and on a preallocated one (goal: at least 0.95 times it), run in turns, twice, with the
///   hand-off alone (`Handoff.swift`: what crossing to the writer thread and back costs);
/// - beside each rate, the bytes written to the device per durable append (/proc/diskstats, the
///   device under the directory, over the timed part; goal: serial appends at most 1.1 times the
///   preallocated loop's);
/// - durable appends per second with 1, 8 and 64 concurrent writers (goal at 64: at least 20
///   times the serial rate);
/// - the time to open a journal holding 1,000,000 records, as a bare journal and as the
///   submission queue with 1,000,000 pending (goal: under 0.5 s), and again after all but 1,000
///   were delivered and the queue compacted;
/// - resident memory of a process holding the queue with 1,000,000 pending (goal: under 100 MB);
/// - with encryption at rest (ChaCha20-Poly1305, doc/journal-format.md), in the same run: serial
///   and 64-writer appends (goal: serial within 5 % of unencrypted) and opening the queue of
///   1,000,000 records (goal: at most 1.5 × unencrypted).
///
/// `swift run -c release StorageBenchmark [--dir DIR] [--records N] [--seconds S] [--open-rounds R]`
/// (`--help` lists them)
/// (`StorageBenchmark fill DIR N [encrypted]` and `StorageBenchmark open DIR [encrypted]` make and
/// open one queue alone.)
///
/// Opening is measured in a child process (this executable again, with `open DIR [encrypted]`), so
/// the memory figures are those of a process that did nothing but open the queue. The encrypted
/// and the unencrypted queue are opened alternately, `R` times each (default 3), so that both see
/// the same disk and load; the tables give the median of each, and the runs are listed below.
@main
struct StorageBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The Storage module measured against the disk: durable appends, opening a large queue, with and without encryption.",
        subcommands: [Measure.self, Open.self, Fill.self, FillSessions.self, Replay.self], defaultSubcommand: Measure.self)

    static let payloadSize = 100
    static let bodySize = 200

    /// The allocator set up as surveyd sets it up, before anything runs on other threads.
    static func main() async {
        Journal.useOneHeap()
        await main(nil)
    }

    struct Measure: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every measurement, in one run on one directory (the default).")
        @Option(help: "Where to measure (a new directory under the temporary directory by default); removed afterwards.") var dir: String?
        @Option(help: "Records in the journal and the queue that are opened (at least 1000).") var records = 1_000_000
        @Option(help: "Seconds per append rate.") var seconds = 3
        @Option(help: "How many times each queue is opened, alternately (the table gives the median).") var openRounds = 3

        func validate() throws {
            guard records >= 1000 else { throw ValidationError("--records needs at least 1000, not \(records)") }
            guard seconds > 0 else { throw ValidationError("--seconds needs a whole number above 0, not \(seconds)") }
            guard openRounds > 0 else { throw ValidationError("--open-rounds needs a whole number above 0, not \(openRounds)") }
        }

        func run() async throws {
            let directory = dir ?? FileManager.default.temporaryDirectory.appendingPathComponent("svstorage-\(getpid())").path
            try await StorageBenchmark.measure(directory: directory, records: records, seconds: seconds, openRounds: openRounds)
        }
    }

    struct Open: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Opens the queue in DIR once and prints what it took (the child process the measurement starts).")
        @Argument(help: "The queue's directory.") var dir: String
        @Argument(help: "`encrypted` when the queue was filled under the benchmark's key.") var encrypted: String?

        func validate() throws {
            guard encrypted == nil || encrypted == "encrypted" else { throw ValidationError("the second argument is `encrypted` or nothing, not \(encrypted!)") }
        }

        func run() async throws {
            try await StorageBenchmark.measureOpen(directory: dir, keys: encrypted == nil ? nil : StorageBenchmark.benchmarkKeys)
        }
    }

    struct Fill: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fills DIR with a queue of COUNT pending, kept, to open it again and again (e.g. with two builds, alternately).")
        @Argument(help: "The queue's directory.") var dir: String
        @Argument(help: "How many submissions to queue.") var count: Int
        @Argument(help: "`encrypted` to fill it under the benchmark's key.") var encrypted: String?

        func validate() throws {
            guard count > 0 else { throw ValidationError("COUNT needs a whole number above 0, not \(count)") }
            guard encrypted == nil || encrypted == "encrypted" else { throw ValidationError("the third argument is `encrypted` or nothing, not \(encrypted!)") }
        }

        func run() async throws {
            var logger = Logger(label: "storage-bench-fill")
            logger.logLevel = .error
            let rate = try await StorageBenchmark.fillQueue(directory: dir, count: count, logger: logger, keys: encrypted == nil ? nil : StorageBenchmark.benchmarkKeys)
            print("filled \(dir) with \(count) pending, \(BenchmarkSupport.whole(rate)) enqueues/s")
        }
    }

    static func measure(directory: String, records: Int, seconds: Int, openRounds: Int) async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var logger = Logger(label: "storage-bench")
        logger.logLevel = .error
        let duration = Duration.seconds(seconds)
        print("# StorageBenchmark, \(Date().formatted(.iso8601)), \(ProcessInfo.processInfo.activeProcessorCount) cores, in \(directory)")
        let device = DeviceWrites(under: directory)
        print("# records of \(payloadSize) B payload (\(payloadSize + 21) B framed); \(seconds) s per rate; device \(device.map(\.name) ?? "n/a (no block device under the directory)")")
        // What the neighbours write meanwhile counts too: an idle window shows how much.
        let (_, idleBytes) = await device.measure { try? await Task.sleep(for: duration) }
        print("# written to the device in an idle \(seconds) s window before the runs: \(idleBytes.map { "\(BenchmarkSupport.whole($0 / 1024 / Double(seconds))) KiB/s" } ?? "n/a")\n")

        // The plain loops and the serial journal, plain and encrypted, in turns, twice: each sees
        // the same disk and load.
        let record = payloadSize + 21
        var growing = Measured(count: 0, seconds: 0), fallocated = growing, zeroFilled = growing, serial = growing, sealedSerial = growing
        var handoff = Measured(count: 0, seconds: 0, deviceBytes: nil)
        for round in 0..<2 {
            growing = growing + (try await PlainLoop.run(path: directory + "/growing.dat", record: record, duration: duration, file: .growing, device: device))
            fallocated = fallocated + (try await PlainLoop.run(path: directory + "/fallocated.dat", record: record, duration: duration, file: .fallocated, device: device))
            zeroFilled = zeroFilled + (try await PlainLoop.run(path: directory + "/zero-filled.dat", record: record, duration: duration, file: .zeroFilled, device: device))
            serial = serial + (try await appendRate(directory: directory + "/serial-\(round)", writers: 1, serialOnly: true, duration: duration, logger: logger, device: device))
            sealedSerial = sealedSerial + (try await appendRate(directory: directory + "/serial-sealed-\(round)", writers: 1, serialOnly: true, duration: duration, logger: logger, keys: benchmarkKeys, device: device))
            handoff = handoff + (await Handoff.run(duration: duration))
        }
        var concurrent: [(Int, Measured)] = []
        for writers in [1, 8, 64] {
            concurrent.append((writers, try await appendRate(directory: directory + "/writers-\(writers)", writers: writers, serialOnly: false, duration: duration, logger: logger, device: device)))
        }
        let sealed64 = try await appendRate(directory: directory + "/writers-64-sealed", writers: 64, serialOnly: false, duration: duration, logger: logger, keys: benchmarkKeys, device: device)
        let sealedQueue = directory + "/queue-sealed"
        let sealedFillRate = try await fillQueue(directory: sealedQueue, count: records, logger: logger, keys: benchmarkKeys)
        let queueDirectory = directory + "/queue"
        let fillRate = try await fillQueue(directory: queueDirectory, count: records, logger: logger)
        var sealedOpens: [OpenMeasure] = []
        var plainOpens: [OpenMeasure] = []
        for _ in 0..<openRounds {
            sealedOpens.append(try await openInChild(directory: sealedQueue, encrypted: true))
            plainOpens.append(try await openInChild(directory: queueDirectory))
        }
        try? FileManager.default.removeItem(atPath: sealedQueue)
        let sealedFull = OpenMeasure.median(sealedOpens)
        let full = OpenMeasure.median(plainOpens)
        let kept = records / 1000
        let sessions = directory + "/sessions"
        try await SessionReplay.fill(directory: sessions, count: records, keys: nil)
        let replay = try await SessionReplay.measureInChild(directory: sessions, executable: ownExecutable)
        try? FileManager.default.removeItem(atPath: sessions)
        let (deliverRate, removed) = try await deliverAllBut(directory: queueDirectory, kept: kept, logger: logger)
        let compacted = try await openInChild(directory: queueDirectory)

        // The preallocated baseline is the better of the two preallocated loops (the stricter goal).
        let preallocated = zeroFilled.rate >= fallocated.rate ? (zeroFilled, PlainLoop.File.zeroFilled) : (fallocated, PlainLoop.File.fallocated)
        let fewestBytes = [zeroFilled.bytesPerWrite, fallocated.bytesPerWrite].compactMap { $0 }.min()
        func ratio(_ a: Double?, _ b: Double?) -> String { a.flatMap { a in b.map { BenchmarkSupport.ratio(a / $0) } } ?? "n/a" }
        print("| measure | value | device bytes per append | baseline (same run) | ratio | goal |")
        print("|---|---:|---:|---:|---:|---|")
        for (file, loop) in [(PlainLoop.File.growing, growing), (.fallocated, fallocated), (.zeroFilled, zeroFilled)] {
            print("| write+fdatasync loop, \(record) B, \(file.rawValue) (2 runs) | \(BenchmarkSupport.whole(loop.rate)) /s | \(loop.bytesCell) | | | |")
        }
        for (label, journal) in [("journal", serial), ("encrypted: journal", sealedSerial)] {
            print("| \(label), serial durable appends (2 runs) | \(BenchmarkSupport.whole(journal.rate)) /s | \(journal.bytesCell) | growing file \(BenchmarkSupport.whole(growing.rate)) /s | \(BenchmarkSupport.ratio(journal.rate / growing.rate)) | ≥ 1.2 |")
            print("| | | | \(preallocated.1.rawValue) \(BenchmarkSupport.whole(preallocated.0.rate)) /s | \(BenchmarkSupport.ratio(journal.rate / preallocated.0.rate)) | retired (doc/benchmarks.md) |")
            print("| | | | device bytes: preallocated loop \(fewestBytes.map { "\(BenchmarkSupport.whole($0)) B" } ?? "n/a") | \(ratio(journal.bytesPerWrite, fewestBytes)) | ≤ 1.1 |")
        }
        // The best a serial append can do while it crosses to the writer thread and back: the
        // preallocated loop's time plus one hand-off.
        let bound = 1 / (1 / preallocated.0.rate + 1 / handoff.rate)
        print("| hand-off alone: a task resumed by a thread it woke, nothing written (2 runs) | \(BenchmarkSupport.whole(handoff.rate)) /s (\(BenchmarkSupport.whole(1e6 / handoff.rate)) µs each) | | | | |")
        print("| preallocated loop + one hand-off per write | \(BenchmarkSupport.whole(bound)) /s | | \(preallocated.1.rawValue) \(BenchmarkSupport.whole(preallocated.0.rate)) /s | \(BenchmarkSupport.ratio(bound / preallocated.0.rate)) | |")
        for (writers, measured) in concurrent {
            let goal = writers == 64 ? "≥ 20 × serial" : ""
            print("| journal, \(writers) concurrent writer\(writers == 1 ? "" : "s") | \(BenchmarkSupport.whole(measured.rate)) /s | \(measured.bytesCell) | serial \(BenchmarkSupport.whole(serial.rate)) /s | \(BenchmarkSupport.ratio(measured.rate / serial.rate)) | \(goal) |")
        }
        print("| encrypted: journal, 64 concurrent writers | \(BenchmarkSupport.whole(sealed64.rate)) /s | \(sealed64.bytesCell) | encrypted serial \(BenchmarkSupport.whole(sealedSerial.rate)) /s | \(BenchmarkSupport.ratio(sealed64.rate / sealedSerial.rate)) | ≥ 20 × serial |")
        print("")
        print("| measure | value | baseline (same run) | ratio | goal |")
        print("|---|---:|---:|---:|---|")
        print("| open: journal of \(full.records) records (\(BenchmarkSupport.whole(full.diskMB)) MB) | \(String(format: "%.3f", full.journalSeconds)) s | | | < 1.5 s |")
        print("| open: queue with \(full.pending) pending | \(String(format: "%.3f", full.queueSeconds)) s | | | < 0.5 s |")
        print("| RSS with \(full.pending) pending (peak while opening) | \(String(format: "%.1f", full.rssMB)) MB (\(String(format: "%.1f", full.peakMB)) MB) | empty process \(String(format: "%.1f", full.emptyMB)) MB | | < 100 MB |")
        print("| open after delivering all but \(kept) and compacting (\(removed) segments removed): journal of \(compacted.records) records (\(BenchmarkSupport.whole(compacted.diskMB)) MB) | \(String(format: "%.3f", compacted.journalSeconds)) s | | | |")
        print("| open after compaction: queue with \(compacted.pending) pending | \(String(format: "%.3f", compacted.queueSeconds)) s | | | |")
        print("| RSS after compaction with \(compacted.pending) pending | \(String(format: "%.1f", compacted.rssMB)) MB | | | |")
        print("| encrypted: journal, serial durable appends (2 runs) | \(BenchmarkSupport.whole(sealedSerial.rate)) /s | unencrypted \(BenchmarkSupport.whole(serial.rate)) /s (2 runs) | \(BenchmarkSupport.ratio(sealedSerial.rate / serial.rate)) | ≥ 0.95 |")
        let plain64 = concurrent.first { $0.0 == 64 }?.1.rate ?? 0
        print("| encrypted: journal, 64 concurrent writers | \(BenchmarkSupport.whole(sealed64.rate)) /s | unencrypted \(BenchmarkSupport.whole(plain64)) /s | \(BenchmarkSupport.ratio(sealed64.rate / plain64)) | |")
        print("| encrypted: open journal of \(sealedFull.records) records (\(BenchmarkSupport.whole(sealedFull.diskMB)) MB) | \(String(format: "%.3f", sealedFull.journalSeconds)) s | unencrypted \(String(format: "%.3f", full.journalSeconds)) s | \(BenchmarkSupport.ratio(sealedFull.journalSeconds / full.journalSeconds)) | ≤ 1.5 × |")
        print("| encrypted: open queue with \(sealedFull.pending) pending | \(String(format: "%.3f", sealedFull.queueSeconds)) s | unencrypted \(String(format: "%.3f", full.queueSeconds)) s | \(BenchmarkSupport.ratio(sealedFull.queueSeconds / full.queueSeconds)) | ≤ 1.5 × |")
        print("| encrypted: RSS with \(sealedFull.pending) pending (peak while opening) | \(String(format: "%.1f", sealedFull.rssMB)) MB (\(String(format: "%.1f", sealedFull.peakMB)) MB) | unencrypted \(String(format: "%.1f", full.rssMB)) MB | | < 100 MB |")
        print("| sessions journal of \(replay.records) events: RSS with its records recovered (an owner that keeps them) | \(String(format: "%.1f", replay.openMB)) MB | empty process \(String(format: "%.1f", replay.emptyMB)) MB | +\(String(format: "%.1f", replay.openMB - replay.emptyMB)) MB | |")
        print("| the same after replaying them, let go | \(String(format: "%.1f", replay.replayedMB)) MB | empty process \(String(format: "%.1f", replay.emptyMB)) MB | +\(String(format: "%.1f", replay.replayedMB - replay.emptyMB)) MB | ≤ +10 MB |")
        func runs(_ opens: [OpenMeasure], _ field: KeyPath<OpenMeasure, Double>) -> String { opens.map { String(format: "%.3f", $0[keyPath: field]) }.joined(separator: ", ") }
        print("\nOpens, alternating (median in the table): queue encrypted \(runs(sealedOpens, \.queueSeconds)) s, unencrypted \(runs(plainOpens, \.queueSeconds)) s; journal encrypted \(runs(sealedOpens, \.journalSeconds)) s, unencrypted \(runs(plainOpens, \.journalSeconds)) s.")
        print("\nFilling: \(BenchmarkSupport.whole(fillRate)) enqueues/s (encrypted: \(BenchmarkSupport.whole(sealedFillRate))) enqueues/s and \(BenchmarkSupport.whole(deliverRate)) deliveries/s recorded, with relaxed durability and 512 at a time (setup, not a goal).")
    }

    /// Durable appends over `duration`, with the device bytes they cost. `serialOnly`: one caller,
    /// each append awaited before the next.
    static func appendRate(directory: String, writers: Int, serialOnly: Bool, duration: Duration, logger: Logger, keys: JournalKeys? = nil, device: DeviceWrites?) async throws -> Measured {
        var options = JournalOptions()
        options.encryption = keys
        let journal = try Journal(directory: directory, options: options, logger: logger)
        defer { journal.close(then: {}) }  // when it throws
        let payload = [UInt8](repeating: 0x5A, count: payloadSize)
        let clock = ContinuousClock()
        let ((total, seconds), deviceBytes) = try await device.measure { () async throws -> (Int, Double) in
            let start = clock.now
            let end = start.advanced(by: duration)
            let total = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<(serialOnly ? 1 : writers) {
                    group.addTask {
                        var count = 0
                        while clock.now < end {
                            _ = try await journal.append(type: 1, payload: payload)
                            count += 1
                        }
                        return count
                    }
                }
                return try await group.reduce(0, +)
            }
            return (total, (clock.now - start).seconds)
        }
        let result = Measured(count: total, seconds: seconds, deviceBytes: deviceBytes)
        await journal.close()
        return result
    }

    static func relaxedQueueOptions(keys: JournalKeys? = nil) -> SubmissionQueueOptions {
        var options = SubmissionQueueOptions()
        options.journal.durability = .relaxed(syncInterval: .milliseconds(100))
        options.journal.encryption = keys
        return options
    }

    /// A fixed key for the encrypted rows (the benchmark's directories are removed at the end).
    static var benchmarkKeys: JournalKeys {
        // 32 bytes always make a key.
        JournalKeys(current: try! JournalKey(bytes: (0..<32).map { UInt8($0) }))
    }

    /// Queues `count` submissions with `bodySize`-byte bodies; returns enqueues per second.
    static func fillQueue(directory: String, count: Int, logger: Logger, keys: JournalKeys? = nil) async throws -> Double {
        let queue = try SubmissionQueue(directory: directory, options: relaxedQueueOptions(keys: keys), logger: logger)
        defer { queue.close(then: {}) }  // when it throws
        let body = [UInt8](repeating: 0x7B, count: bodySize)
        let clock = ContinuousClock()
        let start = clock.now
        var done = 0
        while done < count {
            let batch = min(512, count - done)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<batch {
                    let metadata = SubmissionMetadata(key: UUID(), stage: i % 3 == 0 ? "common" : "1", language: i % 2 == 0 ? "ko" : "en", definitionHash: "0123456789abcdef0123456789abcdef01234567", queuedAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(done + i)), session: UUID())
                    group.addTask { try await queue.enqueue(metadata, body: body) }
                }
                try await group.waitForAll()
            }
            done += batch
        }
        let result = Double(count) / (clock.now - start).seconds
        await queue.close()
        return result
    }

    /// Marks every pending submission delivered except every 1000th, then compacts. Returns
    /// deliveries per second and how many segments the compaction removed.
    static func deliverAllBut(directory: String, kept: Int, logger: Logger) async throws -> (Double, Int) {
        let queue = try SubmissionQueue(directory: directory, options: relaxedQueueOptions(), logger: logger)
        defer { queue.close(then: {}) }  // when it throws
        let all = await queue.pending(limit: Int.max)
        let doomed = all.enumerated().filter { $0.offset % 1000 != 0 }.map(\.element.id)
        guard all.count - doomed.count == kept else { throw BenchmarkError("expected to keep \(kept) of \(all.count), would keep \(all.count - doomed.count)") }
        let clock = ContinuousClock()
        let start = clock.now
        var index = 0
        while index < doomed.count {
            let slice = doomed[index..<min(index + 512, doomed.count)]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in slice { group.addTask { try await queue.markDelivered(id, response: nil) } }
                try await group.waitForAll()
            }
            index += slice.count
        }
        let rate = Double(doomed.count) / (clock.now - start).seconds
        let report = try await queue.compact()
        let result = (rate, report.removedSegments.count)
        await queue.close()
        return result
    }

    struct OpenMeasure {
        var records = 0
        var diskMB = 0.0
        var journalSeconds = 0.0
        var queueSeconds = 0.0
        var pending = 0
        var emptyMB = 0.0
        var rssMB = 0.0
        var peakMB = 0.0

        /// Each field's median over `runs` (the upper one of an even count).
        static func median(_ runs: [OpenMeasure]) -> OpenMeasure {
            func middle(_ field: KeyPath<OpenMeasure, Double>) -> Double { runs.map { $0[keyPath: field] }.sorted()[runs.count / 2] }
            func middle(_ field: KeyPath<OpenMeasure, Int>) -> Int { runs.map { $0[keyPath: field] }.sorted()[runs.count / 2] }
            return OpenMeasure(
                records: middle(\.records), diskMB: middle(\.diskMB), journalSeconds: middle(\.journalSeconds), queueSeconds: middle(\.queueSeconds),
                pending: middle(\.pending), emptyMB: middle(\.emptyMB), rssMB: middle(\.rssMB), peakMB: middle(\.peakMB))
        }
    }

    /// Runs `StorageBenchmark open DIR` and reads its one line of `key=value` fields.
    static func openInChild(directory: String, encrypted: Bool = false) async throws -> OpenMeasure {
        let result = try await runProcess(ownExecutable, ["open", directory] + (encrypted ? ["encrypted"] : []), deadline: .seconds(600))
        FileHandle.standardError.write(Data(result.stderr.utf8))
        guard result.status == 0, !result.timedOut else {
            throw BenchmarkError("the open measurement exited \(result.status)\(result.timedOut ? " (killed after 600 s)" : ""); its errors are above")
        }
        let output = result.stdout
        var fields: [String: Double] = [:]
        for pair in output.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
        }
        func field(_ name: String) throws -> Double {
            guard let value = fields[name] else { throw BenchmarkError("the open measurement printed no \(name): \(output)") }
            return value
        }
        return OpenMeasure(
            records: Int(try field("records")), diskMB: try field("diskMB"), journalSeconds: try field("journalSeconds"),
            queueSeconds: try field("queueSeconds"), pending: Int(try field("pending")), emptyMB: try field("emptyMB"),
            rssMB: try field("rssMB"), peakMB: try field("peakMB"))
    }

    /// Child mode: opens the bare journal (records visited, none kept), then the queue on it, and
    /// prints the times and this process's memory with the queue open.
    static func measureOpen(directory: String, keys: JournalKeys?) async throws {
        let logger = Logger(label: "storage-bench-open")
        var options = JournalOptions()
        options.encryption = keys
        var queueOptions = SubmissionQueueOptions()
        queueOptions.journal.encryption = keys
        let emptyMB = BenchmarkSupport.memoryMegabytes()
        let clock = ContinuousClock()
        var start = clock.now
        var records = 0
        let journal = try Journal(directory: directory, options: options, logger: logger) { _, _ in records += 1 }
        let journalSeconds = (clock.now - start).seconds
        let diskMB = Double(journal.diskBytes) / 1_048_576
        await journal.close()
        start = clock.now
        let queue = try SubmissionQueue(directory: directory, options: queueOptions, logger: logger)
        let queueSeconds = (clock.now - start).seconds
        let pending = await queue.counts().pending
        let rssMB = BenchmarkSupport.memoryMegabytes()
        let peakMB = BenchmarkSupport.memoryMegabytes(field: "VmHWM")
        await queue.close()
        print("records=\(records) diskMB=\(diskMB) journalSeconds=\(journalSeconds) queueSeconds=\(queueSeconds) pending=\(pending) emptyMB=\(emptyMB) rssMB=\(rssMB) peakMB=\(peakMB)")
    }
}

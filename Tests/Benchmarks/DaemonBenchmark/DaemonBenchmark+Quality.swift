#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import BenchmarkSupport
import ControlAPI
import Foundation
import NIOCore
import SurveyTesting

/// The cost of data quality: the same sessions, each completing its first stage, on two daemons,
/// one measuring paradata and judging flags (`dataQuality on`, the default) and one not
/// (`SURVEYD_DATA_QUALITY=off`), in pairs run back to back, alternating which goes first. Goals:
/// at most 5 % more daemon CPU per answer, at most 10 % more bytes appended to the session
/// journal per session.
extension DaemonBenchmark {
    struct QualityRow {
        var load: Measured
        /// Bytes appended to the session journal per session (`surveyd_journal_appended_bytes_total`).
        var journalBytesPerSession: Double
    }

    /// The five answers that complete the `common` stage.
    static let completingSteps = steps + [["5"]]

    static func qualityPairs(surveyd: URL, directory: String, serverURL: String, http: HTTPClient, clients: Int, sessions: Int, pairs: Int) async throws -> [(on: QualityRow, off: QualityRow)] {
        guard pairs > 0 else { return [] }
        let on = try await Daemon(binary: surveyd, directory: directory + "/on", serverURL: serverURL, inFlight: inFlight)
        let off = try await Daemon(binary: surveyd, directory: directory + "/off", serverURL: serverURL, inFlight: inFlight, environment: ["SURVEYD_DATA_QUALITY": "off"])
        func row(_ daemon: Daemon, _ what: String) async throws -> QualityRow {
            let control = ControlClient(socketPath: daemon.socket, httpClient: http)
            let (_, ids) = try await startSessions(control: control, clients: clients, count: sessions)
            let before = try await sessionJournalBytes(daemon.socket)
            FileHandle.standardError.write(Data("timing answers of \(clients) clients, data quality \(what), daemon pid \(daemon.pid)\n".utf8))
            let bodies = ids.map { ids in ids.flatMap { id in completingSteps.map { AnswerLoad.body(session: id, values: $0) } } }
            let load = try await socketLoad(socket: daemon.socket, bodies: bodies, server: daemon.pid, device: nil)
            let after = try await sessionJournalBytes(daemon.socket)
            return QualityRow(load: load, journalBytesPerSession: (after - before) / Double(sessions))
        }
        var results: [(on: QualityRow, off: QualityRow)] = []
        do {
            try await on.waitReady()
            try await off.waitReady()
            for pair in 0 ..< pairs {
                if pair % 2 == 0 {
                    let first = try await row(on, "on")
                    results.append((first, try await row(off, "off")))
                } else {
                    let first = try await row(off, "off")
                    results.append((try await row(on, "on"), first))
                }
            }
        } catch {
            await on.stop()
            await off.stop()
            throw error
        }
        await on.stop()
        await off.stop()
        return results
    }

    /// `surveyd_journal_appended_bytes_total{journal="sessions"}` of the daemon at `socket`.
    static func sessionJournalBytes(_ socket: String) async throws -> Double {
        let metrics = try await UnixHTTP.request(socket: socket, method: "GET", target: "/metrics").bodyText
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("surveyd_journal_appended_bytes_total") && $0.contains("journal=\"sessions\"") }
        guard let value = line?.split(separator: " ").last.flatMap({ Double($0) }) else {
            throw BenchmarkError("the daemon's metrics have no surveyd_journal_appended_bytes_total for the session journal")
        }
        return value
    }

    static func printQualityRows(_ pairs: [(on: QualityRow, off: QualityRow)], clients: Int) {
        guard !pairs.isEmpty else { return }
        print("| measure (\(clients) clients, each session completing its first stage) | data quality on | off (baseline) | ratio | goal |")
        print("|---|---|---|---|---|")
        for (index, pair) in pairs.enumerated() {
            print("| pair \(index + 1): daemon CPU per answer | \(String(format: "%.0f µs", pair.on.load.serverMicros)) | \(String(format: "%.0f µs", pair.off.load.serverMicros)) | \(BenchmarkSupport.ratio(pair.on.load.serverMicros / pair.off.load.serverMicros)) | ≤ 1.05 |")
            print("| pair \(index + 1): answers/s | \(BenchmarkSupport.whole(pair.on.load.rate)) /s | \(BenchmarkSupport.whole(pair.off.load.rate)) /s | \(BenchmarkSupport.ratio(pair.on.load.rate / pair.off.load.rate)) | |")
            print("| pair \(index + 1): session journal bytes per session | \(String(format: "%.0f B", pair.on.journalBytesPerSession)) | \(String(format: "%.0f B", pair.off.journalBytesPerSession)) | \(BenchmarkSupport.ratio(pair.on.journalBytesPerSession / pair.off.journalBytesPerSession)) | ≤ 1.10 |")
        }
        let cpu = pairs.map { $0.on.load.serverMicros / $0.off.load.serverMicros }.sorted()
        print("| median CPU ratio over \(pairs.count) pairs | | | \(BenchmarkSupport.ratio(cpu[cpu.count / 2])) | ≤ 1.05 |")
    }
}

extension DaemonBenchmark {
    /// `DaemonBenchmark --quality`: the quality pairs alone, against a mock server of their own.
    static func measureQuality(fixtures: URL) async throws {
        let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let surveyd = binaries.appendingPathComponent("surveyd")
        let mockServer = binaries.appendingPathComponent("mock-survey-server")
        for binary in [surveyd, mockServer] where !FileManager.default.isExecutableFile(atPath: binary.path) {
            throw BenchmarkError("\(binary.path) is missing; run `swift build -c release --product surveyd && swift build -c release --product mock-survey-server` first")
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("svbench-quality-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let pairs = Int(ProcessInfo.processInfo.environment["BENCH_PAIRS"] ?? "") ?? 4
        let sessions = Int(ProcessInfo.processInfo.environment["BENCH_QUALITY_SESSIONS"] ?? "") ?? 2_000
        print("# DaemonBenchmark --quality, \(Date().formatted(.iso8601)), \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(loadAverage())\n")
        let mock = try await MockServerProcess(binary: mockServer, fixtures: fixtures, port: 0, record: work + "/record.jsonl")
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let rows = try await qualityPairs(surveyd: surveyd, directory: work, serverURL: "http://127.0.0.1:\(mock.port)", http: http, clients: 8, sessions: sessions, pairs: pairs)
            printQualityRows(rows, clients: 8)
        } catch {
            await mock.stop()
            try await http.shutdown()
            throw error
        }
        await mock.stop()
        try await http.shutdown()
        print("\nload average at the end: \(loadAverage())")
    }
}

#if canImport(Glibc)
import ArgumentParser
import Glibc
#endif
import AsyncHTTPClient
import BenchmarkSupport
import ControlAPI
import Entities
import Foundation
import Histogram
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Storage
import SurveyTesting

/// The daemon measured from outside, in one run on one machine:
/// - durable answers per second through the control socket with 1, 8 and 64 concurrent clients,
///   beside a plain write+fdatasync loop on the same file system (the disk's serial limit). The
///   sessions are started first (that rate is reported too: each start fetches the questionnaire
///   from the mock server); then only answers are timed, sent by ``AnswerLoad``;
/// - after each of those rows, the same answers to the durable floor (``FloorServer`` appending
///   each body to a `Journal` before its reply), and the daemon's CPU per answer as a ratio to it;
/// - the bytes written to the device under the state directory per answer, the daemon's and the
///   durable floor's (``DeviceWrites``), and per fdatasync of the plain loop;
/// - the control round trip's p50 and p99;
/// - the same answers through the kiosk pages of a second daemon, by 1, 8 and 64 respondents
///   (``KioskLoad``), with each page's p50 and p99;
/// - the framework's floor of both paths (``FloorServer``, a child process), loaded the same way,
///   and the daemon's CPU per answer as a ratio to the floor's;
/// - replay of 100,000 queued submissions to the mock server on loopback, beside a bare
///   AsyncHTTPClient loop with the same concurrency (run twice, the faster counts); the mock
///   server is a `mock-survey-server` child process, so both talk to it across processes;
/// - CPU time per answer and per upload of each process;
/// - the answers of the largest client count on two more daemons, one with its journals
///   encrypted at rest (`--encryption-key-file`), in pairs run back to back, alternating which
///   goes first (`BENCH_PAIRS`, 2 by default; goal: at most 5 % more daemon CPU per answer);
/// - the daemon's resident memory idle and with 100,000 queued.
///
/// `swift build -c release --product surveyd && swift build -c release --product mock-survey-server
/// && swift run -c release DaemonBenchmark [mock]`
@main
struct DaemonBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The daemon measured from outside: answers through the control socket and the kiosk pages beside their floors, replay, CPU and memory.",
        discussion: "Build surveyd and mock-survey-server in release first; they are taken from this benchmark's own directory. BENCH_CLIENTS, BENCH_ANSWERS, BENCH_QUEUED and BENCH_PAIRS in the environment narrow a run. (`--floor-server …` is the child process the benchmark starts for its floor.)")

    @Argument(help: "The mock server's fixtures directory.") var fixturesPath = "mock"
    @Option(help: "Measure only the daemon's memory while it exports this many pending submissions (`GET /v1/queue/export`).")
    var export: Int?
    @Flag(help: "Measure only the cost of data quality: CPU per answer and session journal bytes with `dataQuality` on and off (BENCH_PAIRS pairs, 8 clients).")
    var quality = false

    /// Sessions started per row; each gets four answers.
    static let sessionsPerRow = [1: 1_000, 8: 3_000, 64: 10_000]
    static let queued = Int(ProcessInfo.processInfo.environment["BENCH_QUEUED"] ?? "") ?? 100_000
    static let inFlight = 8
    /// Pairs of encrypted and unencrypted rows at the largest client count.
    static let encryptionPairCount = Int(ProcessInfo.processInfo.environment["BENCH_PAIRS"] ?? "") ?? 2
    /// The load generator's one event loop thread, which drives every client's connection (as
    /// wrk-style load generators do), rather than a loop per core on a machine whose two cores
    /// the daemon needs; it left more answers per second to the daemon (`doc/benchmarks.md`).
    static let loadLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// The client counts of the answers part: `BENCH_CLIENTS=64` runs one row (for profiling
    /// it), `BENCH_CLIENTS=` (empty) or `BENCH_ANSWERS=0` none (the replay part only).
    static let clientCounts: [Int] = {
        let environment = ProcessInfo.processInfo.environment
        if environment["BENCH_ANSWERS"] == "0" { return [] }
        guard let list = environment["BENCH_CLIENTS"] else { return [1, 8, 64] }
        return list.split(separator: ",").compactMap { Int($0) }.filter { sessionsPerRow[$0] != nil }
    }()

    /// The floor's child process first (its own arguments, not the benchmark's), then the options.
    static func main() async {
        if CommandLine.arguments.dropFirst().first == "--floor-server" {
            do {
                try await FloorServer.run(Array(CommandLine.arguments.dropFirst(2)))
            } catch {
                print("error: \(error)")
                Glibc.exit(1)
            }
            return
        }
        await main(nil)
    }

    func run() async throws {
        if let export {
            try await Self.measureExport(count: export)
            return
        }
        if quality {
            try await Self.measureQuality(fixtures: URL(fileURLWithPath: fixturesPath))
            return
        }
        try await Self.measure(fixtures: URL(fileURLWithPath: fixturesPath))
    }

    static func measure(fixtures: URL) async throws {
        let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let surveyd = binaries.appendingPathComponent("surveyd")
        let mockServer = binaries.appendingPathComponent("mock-survey-server")
        for binary in [surveyd, mockServer] where !FileManager.default.isExecutableFile(atPath: binary.path) {
            print("error: \(binary.path) is missing; run `swift build -c release --product surveyd && swift build -c release --product mock-survey-server` first")
            Glibc.exit(1)
        }
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("svbench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        print("# DaemonBenchmark, \(Date().formatted(.iso8601)), \(ProcessInfo.processInfo.activeProcessorCount) cores, state in \(work), load average \(loadAverage())\n")
        // What the rest of the machine writes to the device meanwhile, for the bytes per answer.
        let device = DeviceWrites(under: work)
        let idleWrites = device?.idleRate(seconds: 2)

        // The disk's serial limit: one write + fdatasync per answer-sized record.
        let baselineWritten = device?.bytesWritten()
        let baseline = try BenchmarkSupport.fdatasyncLoop(path: work + "/baseline.dat", record: 256, duration: .seconds(3))
        var baselineBytes = Double.nan
        if let before = baselineWritten, let after = device?.bytesWritten() { baselineBytes = (after - before) / (baseline * 3) }

        // 1. Answers through the socket.
        let mock = try await MockServerProcess(binary: mockServer, fixtures: fixtures, port: 0, record: work + "/record-answers.jsonl")
        let answersDaemon = try await Daemon(binary: surveyd, directory: work + "/answers", serverURL: "http://127.0.0.1:\(mock.port)", inFlight: inFlight)
        try await answersDaemon.waitReady()
        let idleRSS = answersDaemon.residentMegabytes()
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let control = ControlClient(socketPath: answersDaemon.socket, httpClient: http)
        var rows: [(clients: Int, starts: Double, load: Measured)] = []
        var durableRows: [(clients: Int, load: Measured)] = []
        let durableFloor = try await SocketFloor(durable: true, directory: work + "/durable-floor")
        for clients in clientCounts {
            let sessions = sessionsPerRow[clients]!
            let (starts, ids) = try await startSessions(control: control, clients: clients, count: sessions)
            // A mark for profilers: from here until the next mark, only answers reach the daemon.
            FileHandle.standardError.write(Data("timing answers of \(clients) clients, daemon pid \(answersDaemon.pid)\n".utf8))
            rows.append((clients, starts, try await answers(socket: answersDaemon.socket, sessions: ids, daemon: answersDaemon.pid, device: device)))
            // The durable floor right after, with as many answers.
            FileHandle.standardError.write(Data("timing the durable floor with \(clients) clients, floor pid \(durableFloor.pid)\n".utf8))
            durableRows.append((clients, try await durableFloor.load(clients: clients, device: device)))
        }
        await durableFloor.stop()
        await answersDaemon.stop()
        // The largest row again on two fresh daemons, one encrypting its journals, alternating.
        let pairClients = clientCounts.max()
        var pairs: [(plain: Measured, sealed: Measured)] = []
        if let pairClients {
            pairs = try await encryptionPairs(surveyd: surveyd, directory: work + "/encryption", serverURL: "http://127.0.0.1:\(mock.port)", http: http, clients: pairClients, pairs: encryptionPairCount)
        }

        // 1b. The same answers through the kiosk pages, then the framework's floor of both paths.
        let pages = try await kioskRows(surveyd: surveyd, directory: work + "/kiosk", serverURL: "http://127.0.0.1:\(mock.port)")
        let floors = try await floorRows(directory: work, templates: URL(fileURLWithPath: "Modules/Kiosk/Resources"))
        // The bare loop runs twice, once against this server process and once after the replay
        // against the one the daemon drains to; the ratio is taken to the faster of the two.
        let bareBefore = try await bareUploads(http: http, port: mock.port, count: queued, concurrency: inFlight)

        // 2. Replay of queued submissions: the queue is filled on disk, the daemon starts while the
        // server is down (memory with the queue), then the server comes back and the queue drains.
        let replayDirectory = work + "/replay"
        try await fillQueue(directory: replayDirectory + "/state/queue", count: queued, logger: logger)
        let port = mock.port
        await mock.stop()
        let replayDaemon = try await Daemon(binary: surveyd, directory: replayDirectory, serverURL: "http://127.0.0.1:\(port)", inFlight: inFlight)
        try await replayDaemon.waitReady()
        let replayControl = ControlClient(socketPath: replayDaemon.socket, httpClient: http)
        let queuedStatus = try await replayControl.status()
        precondition(queuedStatus.queue.pending == queued, "expected \(queued) pending, found \(queuedStatus.queue.pending)")
        let queuedRSS = replayDaemon.residentMegabytes()
        let record = work + "/record-replay.jsonl"
        let server = try await MockServerProcess(binary: mockServer, fixtures: fixtures, port: port, record: record)
        // The daemon reuses a connectivity verdict for 1 s: the flush comes after the offline one
        // ran out. Its connectivity watcher may wake the worker first: only what is still pending
        // when the clock starts is counted (CPU counters are read first, so CPU per upload errs high).
        try await Task.sleep(for: .milliseconds(1100))
        let clock = ContinuousClock()
        let replayStart = clock.now
        let daemonCPU = BenchmarkSupport.cpuSeconds(pid: replayDaemon.pid)
        var serverCPU = BenchmarkSupport.cpuSeconds(pid: server.pid)
        let timed = try await replayControl.status().queue.pending
        guard timed > queued / 2 else { throw BenchmarkError("only \(timed) of \(queued) were still pending when the clock started") }
        _ = try await replayControl.flush(FlushRequest())
        // Status costs the daemon work too: asked rarely while much is left, often near the end.
        while case let pending = try await replayControl.status().queue.pending, pending > 0 {
            try await Task.sleep(for: .milliseconds(pending > 2_000 ? 250 : 10))
        }
        let replayRate = Double(timed) / (clock.now - replayStart).seconds
        let replayCPU = "daemon \(microseconds(BenchmarkSupport.cpuSeconds(pid: replayDaemon.pid) - daemonCPU, per: timed)), mock server \(microseconds(BenchmarkSupport.cpuSeconds(pid: server.pid) - serverCPU, per: timed))"
        let drainedRSS = replayDaemon.residentMegabytes()
        await replayDaemon.stop()
        let accepted = MockServerProcess.lines(record)
        guard accepted == queued else { throw BenchmarkError("the server recorded \(accepted) accepted submissions of \(queued)") }
        serverCPU = BenchmarkSupport.cpuSeconds(pid: server.pid)
        let ownCPU = BenchmarkSupport.cpuSeconds()
        let bareAfter = try await bareUploads(http: http, port: port, count: queued, concurrency: inFlight)
        let bare = max(bareBefore, bareAfter)
        let bareCPU = "bare client \(microseconds(BenchmarkSupport.cpuSeconds() - ownCPU, per: queued)), mock server \(microseconds(BenchmarkSupport.cpuSeconds(pid: server.pid) - serverCPU, per: queued))"
        await server.stop()
        try await http.shutdown()

        print("| measure | value | baseline | ratio | goal |")
        print("|---|---|---|---|---|")
        print("| serial write+fdatasync (256 B) | \(BenchmarkSupport.whole(baseline)) /s | | | |")
        print("| device bytes written per fdatasync of that loop (a growing file) | \(String(format: "%.0f B", baselineBytes)) | | | |")
        print("| device \(device?.name ?? "(none found)") written by the rest of the machine, 2 s before the benchmark | \(idleWrites.map { String(format: "%.0f KB/s", $0 / 1000) } ?? "n/a") | | | |")
        for (clients, starts, load) in rows {
            print("| session starts/s, \(clients) client\(clients == 1 ? "" : "s") (untimed setup; each fetches the questionnaire) | \(BenchmarkSupport.whole(starts)) /s | | | |")
            print("| durable answers/s, \(clients) client\(clients == 1 ? "" : "s") | \(BenchmarkSupport.whole(load.rate)) /s | \(BenchmarkSupport.whole(baseline)) /s | \(BenchmarkSupport.ratio(load.rate / baseline)) | |")
            print("| control round trip, \(clients) client\(clients == 1 ? "" : "s") | p50 \(String(format: "%.2f", load.p50)) ms, p99 \(String(format: "%.2f", load.p99)) ms | | | |")
            print("| CPU per answer, \(clients) client\(clients == 1 ? "" : "s") | daemon \(String(format: "%.0f", load.serverMicros)) µs, load generator \(String(format: "%.0f", load.loadMicros)) µs | | | |")
        }
        printSocketRows(socket: rows.map { ($0.clients, $0.load) }, durable: durableRows, pairs: pairs, pairClients: pairClients)
        printKioskRows(socket: rows.map { ($0.clients, $0.load) }, pages: pages, floors: floors)
        print("| replay of \(queued) queued submissions (\(inFlight) in flight; \(timed) pending when timed) | \(BenchmarkSupport.whole(replayRate)) /s | bare AHC \(BenchmarkSupport.whole(bare)) /s (runs: \(BenchmarkSupport.whole(bareBefore)), \(BenchmarkSupport.whole(bareAfter))) | \(BenchmarkSupport.ratio(replayRate / bare)) | retired (doc/benchmarks.md) |")
        print("| CPU per upload, replay | \(replayCPU) | \(bareCPU) | | |")
        print("| daemon RSS idle | \(String(format: "%.1f", idleRSS)) MB | | | retired (doc/benchmarks.md) |")
        print("| daemon RSS with \(queued) queued | \(String(format: "%.1f", queuedRSS)) MB | | | |")
        print("| daemon RSS after draining them | \(String(format: "%.1f", drainedRSS)) MB | | | |")
        print("\nload average at the end: \(loadAverage())")
    }

    /// The first three fields of `/proc/loadavg` (1, 5 and 15 minutes).
    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// CPU `seconds` spread over `count` operations, e.g. `152 µs`.
    static func microseconds(_ seconds: Double, per count: Int) -> String {
        String(format: "%.0f µs", seconds / Double(count) * 1e6)
    }

    /// Starts `count` sessions of stage `common` with `clients` concurrent ControlClient callers;
    /// returns the rate and the ids, dealt to the clients in turn.
    static func startSessions(control: ControlClient, clients: Int, count: Int) async throws -> (Double, [[String]]) {
        let clock = ContinuousClock()
        let start = clock.now
        let ids = try await withThrowingTaskGroup(of: [String].self) { group in
            for client in 0 ..< clients {
                group.addTask {
                    var ids: [String] = []
                    for _ in stride(from: client, to: count, by: clients) {
                        ids.append(try await control.startSession(StartSessionRequest(typeId: "common", lang: "en")).id)
                    }
                    return ids
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        return (Double(count) / (clock.now - start).seconds, ids)
    }

    /// Each client answers the first four questions of each of its sessions, one request after
    /// another on its own connection (each answer is journaled with an fdatasync before the
    /// reply): answers per second, the round trip's p50 and p99, and the CPU time per answer of
    /// the daemon and of this process (the load generator), and the bytes written to `device`.
    static func answers(socket: String, sessions: [[String]], daemon: Int32, device: DeviceWrites?) async throws -> Measured {
        let bodies = sessions.map { ids in ids.flatMap { id in steps.map { AnswerLoad.body(session: id, values: $0) } } }
        return try await socketLoad(socket: socket, bodies: bodies, server: daemon, device: device)
    }

    /// The body of every upload in the replay and the bare loop: a finished `common` stage.
    static let uploadBody = AnswersUpload(answers: [
        "name": .string("Kim Minsu"), "email": .string("kim@example.com"), "emailConfirm": .string("kim@example.com"),
        "age": .integer(30), "like": .integer(2),
    ]).encoded()

    /// Fills a submission queue with `count` finished `common` stages, 256 at a time (group commit).
    static func fillQueue(directory: String, count: Int, logger: Logger) async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let queue = try SubmissionQueue(directory: directory, logger: logger)
        defer { queue.close(then: {}) }  // when it throws
        let body = [UInt8](uploadBody)
        var done = 0
        while done < count {
            let batch = min(256, count - done)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0 ..< batch {
                    let metadata = SubmissionMetadata(key: UUID(), stage: "common", language: "en", definitionHash: "bench", queuedAt: Date())
                    group.addTask { try await queue.enqueue(metadata, body: body) }
                }
                try await group.waitForAll()
            }
            done += batch
        }
        await queue.close()
    }

    /// The same uploads sent by a bare AsyncHTTPClient loop with `concurrency` workers and no check.
    static func bareUploads(http: HTTPClient, port: Int, count: Int, concurrency: Int) async throws -> Double {
        let body = uploadBody
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0 ..< concurrency {
                group.addTask {
                    var i = worker
                    while i < count {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/answers/common?lang=en")
                        request.method = .POST
                        request.headers.add(name: "Content-Type", value: "application/json")
                        request.headers.add(name: "Idempotency-Key", value: UUID().uuidString.lowercased())
                        request.body = .bytes(ByteBuffer(bytes: body))
                        let response = try await http.execute(request, timeout: .seconds(10))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        precondition(response.status == .ok, "bare upload got \(response.status)")
                        i += concurrency
                    }
                }
            }
            try await group.waitForAll()
        }
        return Double(count) / (clock.now - start).seconds
    }
}

/// How long any child process of the benchmark may live: killed after that even if the
/// benchmark stops early.
let childDeadline = Duration.seconds(1800)

/// A surveyd child process with its own state directory and socket.
struct Daemon {
    let child: BackgroundProcess
    let socket: String

    /// - Parameter kioskPort: serve the kiosk pages on this loopback port too.
    /// - Parameter keyFile: encrypt the journals with this key.
    init(binary: URL, directory: String, serverURL: String, inFlight: Int, kioskPort: Int? = nil, keyFile: String? = nil, environment: [String: String] = [:]) async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socket = directory + "/d.sock"
        var arguments = ["--server-url", serverURL, "--state-dir", directory + "/state", "--socket", socket, "--max-in-flight", String(inFlight), "--log-level", "error"]
        if let kioskPort { arguments += ["--kiosk-listen", "127.0.0.1:\(kioskPort)"] }
        if let keyFile { arguments += ["--encryption-key-file", keyFile] }
        child = try await BackgroundProcess.start(binary, arguments, environment: environment, deadline: childDeadline)
    }

    var pid: Int32 { child.pid }

    func waitReady() async throws {
        for _ in 0 ..< 1500 {
            if case .live = UnixSocketProbe.probe(path: socket) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchmarkError("surveyd did not listen on \(socket) within 30 s; its stderr: \(child.errorOutput)")
    }

    func residentMegabytes() -> Double { BenchmarkSupport.memoryMegabytes(pid: pid) }

    func stop() async { await child.stop() }
}

/// A mock-survey-server child process on loopback, recording accepted submissions to a file.
struct MockServerProcess {
    let child: BackgroundProcess
    let port: Int

    /// Starts the server on `port` (0: the system chooses) and waits for its "listening on" line.
    init(binary: URL, fixtures: URL, port: Int, record: String) async throws {
        child = try await BackgroundProcess.start(binary, ["--fixtures", fixtures.path, "--port", String(port), "--record", record], deadline: childDeadline)
        let line = try await child.waitForLine(containing: "listening on")
        guard let bound = Int(line.split(separator: ":").last ?? "") else {
            await child.stop()
            throw BenchmarkError("mock-survey-server printed no port: \(line)")
        }
        self.port = bound
    }

    var pid: Int32 { child.pid }

    func stop() async { await child.stop() }

    /// Lines in a record file (one per accepted submission); 0 when it cannot be read.
    static func lines(_ path: String) -> Int {
        (FileManager.default.contents(atPath: path) ?? Data()).reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }
}

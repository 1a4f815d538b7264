// Start to ready and idle memory of surveyd binaries, compared in one run: each binary is started
// in turn, round after round, so that the machine's load swings reach every binary alike.
//
//   swift build -c release --static-swift-stdlib --scratch-path .build-release-static --product StartupBenchmark
//   .build-release-static/release/StartupBenchmark [--rounds N] [--idle SECONDS] [--mock BINARY] NAME=SURVEYD …
//   .build-release-static/release/StartupBenchmark --idle-seconds 60 --rounds 2 --mock BINARY NAME=SURVEYD …
//
// A round starts each daemon with a fresh state directory, with `$NOTIFY_SOCKET` naming a datagram
// socket of the benchmark: "start to ready" runs from just before the process is spawned until
// its `READY=1` arrives (its journals are open, its sessions restored, its control socket
// listens). Then the daemon idles for `--idle` seconds (default 5) and its resident memory
// (`VmRSS`) is read, and it is stopped with SIGTERM. With `--mock`, a mock-survey-server on a
// loopback port is its survey server, so that the idle daemon is online; without, the server
// URL names a loopback port nothing listens on, and the daemon is offline.
//
// With `--idle-seconds`, the idle section runs instead (`StartupBenchmark+Idle.swift`): the
// wake-ups and CPU time of a daemon that does nothing, run as systemd runs it.
#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import BenchmarkSupport
import Foundation
import SurveyTesting

@main
struct StartupBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start to ready and idle memory of surveyd binaries, compared in one run, round after round.")

    struct Sample { var ready: Double; var rssAtReady: Double; var rssIdle: Double }

    @Option(help: "Rounds; each starts every binary once.") var rounds = 10
    @Option(help: "Seconds each daemon idles before its memory is read.") var idle = 5.0
    @Option(help: "Seconds of the idle section's window: wake-ups and CPU of an idle daemon run as systemd would (needs --mock); the start-up rounds are left out.") var idleSeconds: Double?
    @Option(help: "Seconds the idle section lets a daemon settle after READY=1 before its window.") var settleSeconds = 5.0
    @Option(help: "A mock-survey-server binary, so that the idle daemon is online (offline without).") var mock: String?
    @Argument(help: "NAME=SURVEYD: the surveyd binaries to compare, e.g. before=/tmp/surveyd after=.build/release/surveyd.") var named: [String]

    /// The idle section's floor (`--idle-floor`, its own child process, not an option of the
    /// benchmark's): a Swift process of the same toolchain that has used the concurrency pool
    /// once and then waits on nothing, so its wake-ups are the runtime's own.
    static func main() async {
        if CommandLine.arguments.dropFirst().first == "--idle-floor" {
            await Task.detached {}.value
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            return
        }
        await main(nil)
    }

    func validate() throws {
        guard rounds > 0 else { throw ValidationError("--rounds needs a whole number above 0, not \(rounds)") }
        guard idle >= 0 else { throw ValidationError("--idle needs a number of seconds, 0 or more, not \(idle)") }
        for argument in named {
            let parts = argument.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, FileManager.default.isExecutableFile(atPath: String(parts[1])) else {
                throw ValidationError("\(argument): give NAME=PATH of a surveyd binary that exists, e.g. before=/tmp/surveyd")
            }
        }
        guard !named.isEmpty else { throw ValidationError("give at least one NAME=SURVEYD") }
        if let idleSeconds {
            guard idleSeconds > 0 else { throw ValidationError("--idle-seconds needs a number of seconds above 0, not \(idleSeconds)") }
            guard mock != nil else { throw ValidationError("--idle-seconds measures a daemon whose server is reachable: give --mock with a mock-survey-server binary") }
        }
        guard settleSeconds >= 0 else { throw ValidationError("--settle-seconds needs a number of seconds, 0 or more, not \(settleSeconds)") }
    }

    func run() async throws {
        let rounds = rounds, idle = idle, mock = mock
        let binaries = named.map { argument in
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            return (name: parts[0], path: parts[1])
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("svstart-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }

        var server: BackgroundProcess?
        let serverURL: String
        if let mock {
            let fixtures = FileManager.default.currentDirectoryPath + "/mock"
            let child = try await BackgroundProcess.start(URL(fileURLWithPath: mock), ["--fixtures", fixtures, "--port", "0", "--record", work + "/record.jsonl"], deadline: .seconds(3600))
            let line = try await child.waitForLine(containing: "listening on")
            serverURL = "http://127.0.0.1:\(line.split(separator: ":").last ?? "")"
            server = child
        } else {
            serverURL = "http://127.0.0.1:\(try Self.unusedLoopbackPort())"
        }
        if let idleSeconds {
            print("# StartupBenchmark, \(Date().formatted(.iso8601)), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(rounds) rounds")
            try await runIdle(binaries: binaries, serverURL: serverURL, work: work, window: idleSeconds)
            _ = await server?.stop()
            return
        }
        print("# StartupBenchmark, \(Date().formatted(.iso8601)), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(rounds) rounds, idle \(idle) s, server \(mock == nil ? "offline" : "mock")\n")

        var samples: [String: [Sample]] = [:]
        for round in 1 ... rounds {
            for binary in binaries {
                let sample = try await Self.measure(binary.path, directory: "\(work)/\(binary.name)-\(round)", serverURL: serverURL, idle: idle)
                samples[binary.name, default: []].append(sample)
                print("round \(round) \(binary.name): ready \(Self.format(sample.ready * 1000)) ms, RSS \(Self.format(sample.rssAtReady)) MB at ready, \(Self.format(sample.rssIdle)) MB idle")
            }
        }
        _ = await server?.stop()

        print("\n| binary | size | start to ready, median (min–max) | RSS at ready, median | RSS idle, median (min–max) |")
        print("|---|---:|---:|---:|---:|")
        for binary in binaries {
            let runs = samples[binary.name] ?? []
            let ready = runs.map { $0.ready * 1000 }
            let idleRSS = runs.map(\.rssIdle)
            let size = ((try? FileManager.default.attributesOfItem(atPath: binary.path)[.size] as? Int) ?? 0) ?? 0
            print("| \(binary.name) | \(Self.format(Double(size) / 1_048_576)) MB | \(Self.format(Self.median(ready))) ms (\(Self.format(ready.min() ?? .nan))–\(Self.format(ready.max() ?? .nan))) | \(Self.format(Self.median(runs.map(\.rssAtReady)))) MB | \(Self.format(Self.median(idleRSS))) MB (\(Self.format(idleRSS.min() ?? .nan))–\(Self.format(idleRSS.max() ?? .nan))) |")
        }
    }

    /// One start of `binary`: time to `READY=1`, then memory at ready and after `idle` seconds.
    static func measure(_ binary: String, directory: String, serverURL: String, idle: Double) async throws -> Sample {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let notify = try DatagramListener(path: directory + "/notify")
        defer { notify.stop() }
        let arguments = ["--server-url", serverURL, "--state-dir", directory + "/state", "--socket", directory + "/d.sock", "--log-level", "error"]
        let clock = ContinuousClock()
        let start = clock.now
        let daemon = try await BackgroundProcess.start(URL(fileURLWithPath: binary), arguments, environment: ["NOTIFY_SOCKET": notify.name], deadline: .seconds(120))
        while !notify.messages.contains(where: { $0.split(separator: "\n").contains("READY=1") }) {
            guard daemon.isRunning, clock.now - start < .seconds(60) else {
                _ = await daemon.stop(signal: SIGKILL)
                throw BenchmarkError("\(binary) sent no READY=1 within 60 s (or exited); stderr: \(daemon.errorOutput)")
            }
            try await Task.sleep(for: .microseconds(500))
        }
        let ready = (clock.now - start).seconds
        let rssAtReady = BenchmarkSupport.memoryMegabytes(pid: daemon.pid)
        try await Task.sleep(for: .seconds(idle))
        let rssIdle = BenchmarkSupport.memoryMegabytes(pid: daemon.pid)
        let status = await daemon.stop()
        guard status == 0 else { throw BenchmarkError("\(binary) exited \(status) after SIGTERM; stderr: \(daemon.errorOutput)") }
        return Sample(ready: ready, rssAtReady: rssAtReady, rssIdle: rssIdle)
    }

    /// A loopback port that was free a moment ago and has no listener: the offline daemon's server.
    static func unusedLoopbackPort() throws -> Int {
        let listener = try TCPListener()
        defer { listener.stop() }
        return listener.port
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}

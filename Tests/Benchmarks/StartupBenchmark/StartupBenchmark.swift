// Start to ready and idle memory of surveyd binaries, compared in one run: each binary is started
// in turn, round after round, so that the machine's load swings reach every binary alike.
//
//   swift build -c release --static-swift-stdlib --scratch-path .build-release-static --product StartupBenchmark
//   .build-release-static/release/StartupBenchmark [--rounds N] [--idle SECONDS] [--mock BINARY] NAME=SURVEYD …
//
// A round starts each daemon with a fresh state directory, with `$NOTIFY_SOCKET` naming a datagram
// socket of the benchmark: "start to ready" runs from just before the process is spawned until
// its `READY=1` arrives (its journals are open, its sessions restored, its control socket
// listens). Then the daemon idles for `--idle` seconds (default 5) and its resident memory
// (`VmRSS`) is read, and it is stopped with SIGTERM. With `--mock`, a mock-survey-server on a
// loopback port is its survey server, so that the idle daemon is online; without, the server
// URL names a loopback port nothing listens on, and the daemon is offline.
#if canImport(Glibc)
import Glibc
#endif
import BenchmarkSupport
import Foundation
import SurveyTesting

@main
enum StartupBenchmark {
    struct Sample { var ready: Double; var rssAtReady: Double; var rssIdle: Double }

    static func main() async throws {
        var rounds = 10
        var idle = 5.0
        var mock: String?
        var binaries: [(name: String, path: String)] = []
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--rounds": rounds = Int(arguments.popFirst() ?? "") ?? 0
            case "--idle": idle = Double(arguments.popFirst() ?? "") ?? -1
            case "--mock": mock = arguments.popFirst()
            default:
                let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, FileManager.default.isExecutableFile(atPath: parts[1]) else {
                    throw BenchmarkError("\(argument): give NAME=PATH of a surveyd binary that exists, e.g. before=/tmp/surveyd")
                }
                binaries.append((parts[0], parts[1]))
            }
        }
        guard !binaries.isEmpty, rounds > 0, idle >= 0 else {
            throw BenchmarkError("usage: StartupBenchmark [--rounds N] [--idle SECONDS] [--mock MOCK-SERVER] NAME=SURVEYD …")
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
            serverURL = "http://127.0.0.1:\(try unusedLoopbackPort())"
        }
        print("# StartupBenchmark, \(Date().formatted(.iso8601)), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(rounds) rounds, idle \(idle) s, server \(mock == nil ? "offline" : "mock")\n")

        var samples: [String: [Sample]] = [:]
        for round in 1 ... rounds {
            for binary in binaries {
                let sample = try await measure(binary.path, directory: "\(work)/\(binary.name)-\(round)", serverURL: serverURL, idle: idle)
                samples[binary.name, default: []].append(sample)
                print("round \(round) \(binary.name): ready \(format(sample.ready * 1000)) ms, RSS \(format(sample.rssAtReady)) MB at ready, \(format(sample.rssIdle)) MB idle")
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
            print("| \(binary.name) | \(format(Double(size) / 1_048_576)) MB | \(format(median(ready))) ms (\(format(ready.min() ?? .nan))–\(format(ready.max() ?? .nan))) | \(format(median(runs.map(\.rssAtReady)))) MB | \(format(median(idleRSS))) MB (\(format(idleRSS.min() ?? .nan))–\(format(idleRSS.max() ?? .nan))) |")
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

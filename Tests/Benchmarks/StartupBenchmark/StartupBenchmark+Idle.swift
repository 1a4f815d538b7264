// The idle section (`--idle-seconds N`): each daemon starts as systemd would start it
// (`$NOTIFY_SOCKET` on a datagram socket of the benchmark, `$WATCHDOG_USEC` 30 s, so a
// `WATCHDOG=1` every 15 s), with its kiosk listener on, a token file, and the mock server
// reachable; after `READY=1` and `--settle-seconds`, its threads' voluntary context switches
// (wake-ups) and CPU time are read, again N seconds later, and the daemon is stopped. Two
// scenarios per daemon: nothing open, and one session open and idle (started and answered once
// through the control socket, with an idle timeout of an hour, so the window ends long before
// its idle deadline), and the kiosk's welcome screen open in headless Chromium (the screen a kiosk
// shows all day between respondents; `StartupBenchmark+Welcome.swift`), beside the same screen's
// former poll of `GET /state` every 3 s, replayed. Each round also measures the floor: this binary run as an idle Swift
// process (`--idle-floor`), whose wake-ups are the runtime's own.
#if canImport(Glibc)
import Glibc
#endif
import BenchmarkSupport
import ControlAPI
import Foundation
import SurveyTesting

extension StartupBenchmark {
    struct IdleSample {
        var wakeups: Double
        var cpuMilliseconds: Double
        var threads: Int
        var pings: Int
        var busiest: String
    }

    enum IdleScenario: String, CaseIterable {
        case nothingOpen = "idle"
        case oneSessionOpen = "one session open"
        case welcomeInBrowser = "welcome screen in Chromium"
        case welcomePolled = "welcome screen polled every 3 s (replayed)"
    }

    /// The goals: wake-ups per second and CPU milliseconds per second.
    static let idleGoals = (wakeups: 1.0, cpuMilliseconds: 0.1)

    func runIdle(binaries: [(name: String, path: String)], serverURL: String, work: String, window: Double) async throws {
        print("# idle section: \(window) s per window after \(settleSeconds) s of settling, watchdog 30 s, kiosk on, token file, server \(serverURL)\n")
        var samples: [String: [IdleSample]] = [:]
        var floors: [IdleSample] = []
        for round in 1 ... rounds {
            let floor = try await Self.measureFloor(settle: settleSeconds, window: window)
            floors.append(floor)
            print("round \(round) floor (an idle Swift process): \(Self.format(floor.wakeups)) wake-ups/s, \(String(format: "%.3f", floor.cpuMilliseconds)) ms CPU/s, \(floor.threads) threads; busiest: \(floor.busiest)")
            for binary in binaries {
                for scenario in IdleScenario.allCases {
                    let sample = try await Self.measureIdle(
                        binary.path, scenario: scenario, directory: "\(work)/idle-\(binary.name)-\(round)-\(IdleScenario.allCases.firstIndex(of: scenario) ?? 0)",
                        serverURL: serverURL, settle: settleSeconds, window: window)
                    samples["\(binary.name)|\(scenario.rawValue)", default: []].append(sample)
                    print("round \(round) \(binary.name), \(scenario.rawValue): \(Self.format(sample.wakeups)) wake-ups/s, \(String(format: "%.3f", sample.cpuMilliseconds)) ms CPU/s, \(sample.threads) threads, \(sample.pings) WATCHDOG=1; busiest: \(sample.busiest)")
                }
            }
        }
        print("\n| daemon | scenario | measure | goal | " + (1 ... rounds).map { "run \($0)" }.joined(separator: " | ") + " |")
        print("|---|---|---|---:|" + String(repeating: "---:|", count: rounds))
        print("| floor: an idle Swift process | — | wake-ups per second | | " + floors.map { Self.format($0.wakeups) }.joined(separator: " | ") + " |")
        print("| floor: an idle Swift process | — | CPU, ms per second | | " + floors.map { String(format: "%.3f", $0.cpuMilliseconds) }.joined(separator: " | ") + " |")
        for binary in binaries {
            for scenario in IdleScenario.allCases {
                let runs = samples["\(binary.name)|\(scenario.rawValue)"] ?? []
                print("| \(binary.name) | \(scenario.rawValue) | wake-ups per second | ≤ \(Self.format(Self.idleGoals.wakeups)) | " + runs.map { Self.format($0.wakeups) }.joined(separator: " | ") + " |")
                print("| \(binary.name) | \(scenario.rawValue) | wake-ups per second above the floor of its round | | " + zip(runs, floors).map { Self.format($0.wakeups - $1.wakeups) }.joined(separator: " | ") + " |")
                print("| \(binary.name) | \(scenario.rawValue) | CPU, ms per second | ≤ \(Self.idleGoals.cpuMilliseconds) | " + runs.map { String(format: "%.3f", $0.cpuMilliseconds) }.joined(separator: " | ") + " |")
                print("| \(binary.name) | \(scenario.rawValue) | threads | | " + runs.map { "\($0.threads)" }.joined(separator: " | ") + " |")
            }
        }
    }

    /// The floor: this benchmark's own binary as an idle Swift process (`--idle-floor`), measured
    /// over the same window. libdispatch on Linux sizes its thread pool with a timer of its own
    /// once a second, in every process that uses the concurrency pool.
    static func measureFloor(settle: Double, window: Double) async throws -> IdleSample {
        let floor = try await BackgroundProcess.start(URL(fileURLWithPath: CommandLine.arguments[0]), ["--idle-floor"], deadline: .seconds(window + settle + 60))
        try await Task.sleep(for: .seconds(settle))
        let sample = try await Self.window(of: floor.pid, seconds: window) { 0 }
        _ = await floor.stop(signal: SIGKILL)
        return sample
    }

    /// The wake-ups, CPU and threads of process `pid` over `seconds`, with how many `WATCHDOG=1`
    /// `pings` counted meanwhile.
    static func window(of pid: Int32, seconds window: Double, pings: () -> Int) async throws -> IdleSample {
        let clock = ContinuousClock()
        let pingsBefore = pings()
        let before = ProcessActivity.read(pid: pid)
        let measured = clock.now
        try await Task.sleep(for: .seconds(window))
        let after = ProcessActivity.read(pid: pid)
        let seconds = (clock.now - measured).seconds
        let (switches, cpu) = after.since(before)
        let busiest = after.perThread(since: before, pid: pid).prefix(4).map { "\($0.name) \($0.switches)" }.joined(separator: ", ")
        return IdleSample(
            wakeups: Double(switches) / seconds, cpuMilliseconds: Double(cpu) / 1e6 / seconds, threads: after.threads.count,
            pings: pings() - pingsBefore, busiest: busiest)
    }

    /// One daemon, one scenario: the wake-ups and CPU of `window` seconds after start-up settled.
    static func measureIdle(_ binary: String, scenario: IdleScenario, directory: String, serverURL: String, settle: Double, window: Double) async throws -> IdleSample {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let notify = try DatagramListener(path: directory + "/notify")
        defer { notify.stop() }
        try "benchmark-token\n".write(toFile: directory + "/token", atomically: true, encoding: .utf8)
        let socket = directory + "/d.sock"
        let kioskPort = try unusedLoopbackPort()
        var arguments = [
            "--server-url", serverURL, "--state-dir", directory + "/state", "--socket", socket, "--log-level", "error",
            "--kiosk-listen", "127.0.0.1:\(kioskPort)", "--token-file", directory + "/token",
        ]
        if scenario == .oneSessionOpen { arguments += ["--idle-timeout", "3600"] }
        let daemon = try await BackgroundProcess.start(
            URL(fileURLWithPath: binary), arguments,
            environment: ["NOTIFY_SOCKET": notify.name, "WATCHDOG_USEC": "30000000"], deadline: .seconds(window + settle + 120))
        let clock = ContinuousClock()
        let start = clock.now
        while !notify.messages.contains(where: { $0.split(separator: "\n").contains("READY=1") }) {
            guard daemon.isRunning, clock.now - start < .seconds(60) else {
                _ = await daemon.stop(signal: SIGKILL)
                throw BenchmarkError("\(binary) sent no READY=1 within 60 s (or exited); stderr: \(daemon.errorOutput)")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        if scenario == .oneSessionOpen {
            let control = ControlClient(socketPath: socket)
            let session = try await control.startSession(StartSessionRequest(typeId: "common", lang: "en"))
            _ = try await control.answer(AnswerRequest(session: session.id, values: ["Kim Minsu"]))
        }
        let welcome = try await WelcomeVisitor.start(scenario, url: "http://127.0.0.1:\(kioskPort)/", directory: directory, deadline: .seconds(window + settle + 60))
        try await Task.sleep(for: .seconds(settle))
        let sample = try await Self.window(of: daemon.pid, seconds: window) {
            notify.messages.filter { $0.split(separator: "\n").contains("WATCHDOG=1") }.count
        }
        try await welcome?.stop()
        let status = await daemon.stop()
        guard status == 0 else { throw BenchmarkError("\(binary) exited \(status) after SIGTERM; stderr: \(daemon.errorOutput)") }
        return sample
    }
}

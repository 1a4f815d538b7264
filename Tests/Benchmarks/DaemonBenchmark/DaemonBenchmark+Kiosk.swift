import BenchmarkSupport
import Foundation
import Histogram
import NIOCore
import NIOPosix
import SurveyTesting

/// The kiosk pages under load beside the control socket, and the framework's floor of both paths
/// (``FloorServer``), loaded by the same clients.
extension DaemonBenchmark {
    /// A timed load against one server process.
    struct Measured {
        /// What one client did.
        struct Client: Sendable {
            var answered: Int
            var requests: Int
            var latencies: [UInt64]
        }

        var rate = 0.0
        /// Each answer's time (a control round trip, or a page: POST and redirected GET), in ms.
        var p50 = 0.0
        var p99 = 0.0
        var answered = 0
        var requests = 0
        /// CPU time of the server process per answer and per request, and of this process per answer, in µs.
        var serverMicros = 0.0
        var serverMicrosPerRequest = 0.0
        var loadMicros = 0.0
        /// Bytes written to the device under the server's directory per answer (every writer on
        /// the device counted, see ``DeviceWrites``); NaN when not measured.
        var deviceBytes = Double.nan
    }

    /// One timed stretch of load: its clients' results, its duration and the CPU time of both processes.
    struct Stretch {
        var clients: [Measured.Client]
        var elapsed: Double
        var serverSeconds: Double
        var ownSeconds: Double
        /// Bytes written to `device` meanwhile; NaN without one.
        var deviceBytes = Double.nan
    }

    /// Runs `load`, reading the CPU time of `server` and of this process around it, and the bytes
    /// written to `device` (the one under the server's directory).
    static func time(server: Int32, device: DeviceWrites? = nil, _ load: () async throws -> [Measured.Client]) async throws -> Stretch {
        let serverCPU = BenchmarkSupport.cpuSeconds(pid: server)
        let ownCPU = BenchmarkSupport.cpuSeconds()
        let written = device?.bytesWritten()
        let clock = ContinuousClock()
        let start = clock.now
        let clients = try await load()
        let elapsed = (clock.now - start).seconds
        var stretch = Stretch(
            clients: clients, elapsed: elapsed,
            serverSeconds: BenchmarkSupport.cpuSeconds(pid: server) - serverCPU,
            ownSeconds: BenchmarkSupport.cpuSeconds() - ownCPU)
        if let written, let now = device?.bytesWritten() { stretch.deviceBytes = now - written }
        return stretch
    }

    static func measure(server: Int32, device: DeviceWrites? = nil, _ load: () async throws -> [Measured.Client]) async throws -> Measured {
        summarize([try await time(server: server, device: device, load)])
    }

    /// The rate, page times and CPU of stretches taken together (their untimed gaps left out).
    static func summarize(_ stretches: [Stretch]) -> Measured {
        let clients = stretches.flatMap(\.clients)
        let elapsed = stretches.reduce(0) { $0 + $1.elapsed }
        let serverSeconds = stretches.reduce(0) { $0 + $1.serverSeconds }
        let ownSeconds = stretches.reduce(0) { $0 + $1.ownSeconds }
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        for client in clients {
            for latency in client.latencies { histogram.record(latency / 1000) }
        }
        var measured = Measured()
        measured.answered = clients.reduce(0) { $0 + $1.answered }
        measured.requests = clients.reduce(0) { $0 + $1.requests }
        let answered = Double(max(measured.answered, 1))
        measured.rate = Double(measured.answered) / elapsed
        measured.p50 = Double(histogram.valueAtPercentile(50)) / 1000
        measured.p99 = Double(histogram.valueAtPercentile(99)) / 1000
        measured.serverMicros = serverSeconds / answered * 1e6
        measured.serverMicrosPerRequest = serverSeconds / Double(max(measured.requests, 1)) * 1e6
        measured.loadMicros = ownSeconds / answered * 1e6
        measured.deviceBytes = stretches.reduce(0) { $0 + $1.deviceBytes } / answered
        return measured
    }

    /// `sessions` sessions started on the pages on `port` by `clients` respondents, untimed: each
    /// respondent's share, in a browser of its own each (``KioskLoad/start``).
    static func startSessions(port: Int, clients: Int, sessions: Int) async throws -> [[KioskLoad.Session]] {
        try await withThrowingTaskGroup(of: [KioskLoad.Session].self) { group in
            for client in 0 ..< clients {
                let share = sessions / clients + (client < sessions % clients ? 1 : 0)
                group.addTask { try await KioskLoad.start(host: "127.0.0.1", port: port, sessions: share, group: Self.loadLoop) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// The respondents answering their started sessions (``KioskLoad/answer``), the timed part.
    static func answer(port: Int, sessions: [[KioskLoad.Session]]) async throws -> [(Measured.Client, [KioskLoad.Session])] {
        try await withThrowingTaskGroup(of: (Measured.Client, [KioskLoad.Session]).self) { group in
            for share in sessions {
                group.addTask {
                    let (result, answered) = try await KioskLoad.answer(host: "127.0.0.1", port: port, sessions: share, group: Self.loadLoop)
                    return (Measured.Client(answered: result.answered, requests: result.requests, latencies: result.latencies), answered)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// The respondents abandoning their answered sessions (``KioskLoad/reset``), untimed.
    static func reset(port: Int, sessions: [[KioskLoad.Session]]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for share in sessions {
                group.addTask { try await KioskLoad.reset(host: "127.0.0.1", port: port, sessions: share, group: Self.loadLoop) }
            }
            try await group.waitForAll()
        }
    }

    /// Sessions started on the pages at a time: the kiosk keeps at most 1,024 browsers (when full,
    /// it forgets the least recently seen of those without a session, up to an eighth of the
    /// limit and at most the older half of them, else the least recently seen session), and each
    /// started session is a browser.
    static let sessionsPerRound = 960

    /// The sessions of a row, in rounds: each round's sessions are started untimed, their answers
    /// timed, and then they are abandoned untimed (their browsers, without a session, are the
    /// ones the next round's evict).
    static func pagesRow(port: Int, server: Int32, clients: Int) async throws -> Measured {
        var left = sessionsPerRow[clients]!
        var stretches: [Stretch] = []
        while left > 0 {
            let round = min(left, sessionsPerRound)
            left -= round
            let sessions = try await startSessions(port: port, clients: clients, sessions: round)
            var answered: [[KioskLoad.Session]] = []
            stretches.append(try await time(server: server) {
                let results = try await answer(port: port, sessions: sessions)
                answered = results.map(\.1)
                return results.map(\.0)
            })
            try await reset(port: port, sessions: answered)
        }
        return summarize(stretches)
    }

    /// The answers of the socket rows given through the kiosk pages of a daemon of their own (the
    /// same number of sessions per row, four answers each), by 1, 8 and 64 respondents.
    static func kioskRows(surveyd: URL, directory: String, serverURL: String) async throws -> [(clients: Int, load: Measured)] {
        guard !clientCounts.isEmpty else { return [] }
        let port = try await freePort()
        let daemon = try await Daemon(binary: surveyd, directory: directory, serverURL: serverURL, inFlight: inFlight, kioskPort: port)
        try await daemon.waitReady()
        try await waitForPort(port, what: "surveyd's kiosk pages", child: daemon.child)
        var rows: [(Int, Measured)] = []
        for clients in clientCounts {
            FileHandle.standardError.write(Data("timing kiosk pages of \(clients) respondents, daemon pid \(daemon.pid)\n".utf8))
            rows.append((clients, try await pagesRow(port: port, server: daemon.pid, clients: clients)))
        }
        await daemon.stop()
        return rows
    }

    /// The floor of both paths: this executable run as ``FloorServer``, on a Unix socket loaded
    /// like the control socket (the same number of answers, with session ids it ignores), then on
    /// loopback walked like the kiosk pages.
    static func floorRows(directory: String, templates: URL) async throws -> (socket: [(clients: Int, load: Measured)], pages: [(clients: Int, load: Measured)]) {
        guard !clientCounts.isEmpty else { return ([], []) }
        let unix = try await SocketFloor(durable: false, directory: directory + "/floor")
        var socket: [(Int, Measured)] = []
        for clients in clientCounts {
            socket.append((clients, try await unix.load(clients: clients, device: nil)))
        }
        await unix.stop()

        let me = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let tcp = try await BackgroundProcess.start(me, ["--floor-server", "tcp", templates.path], deadline: childDeadline)
        let line = try await tcp.waitForLine(containing: "floor listening")
        guard let port = Int(line.split(separator: " ").last ?? ""), port > 0 else {
            await tcp.stop()
            throw BenchmarkError("the floor server printed no port: \(line)")
        }
        var pages: [(Int, Measured)] = []
        for clients in clientCounts {
            pages.append((clients, try await pagesRow(port: port, server: tcp.pid, clients: clients)))
        }
        await tcp.stop()
        return (socket, pages)
    }

    /// The kiosk's rows and the floor's, with their ratios, under the socket's rows of the table.
    static func printKioskRows(socket: [(clients: Int, load: Measured)], pages: [(clients: Int, load: Measured)], floors: (socket: [(clients: Int, load: Measured)], pages: [(clients: Int, load: Measured)])) {
        func µs(_ value: Double) -> String { String(format: "%.0f µs", value) }
        func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
        func who(_ clients: Int, _ noun: String) -> String { "\(clients) \(noun)\(clients == 1 ? "" : "s")" }
        for (clients, kiosk) in pages {
            let control = socket.first { $0.clients == clients }?.load
            let big = clients == 64
            print("| kiosk answers/s, \(who(clients, "respondent")) (vs. the control socket's; no goal: an answer is two timed requests on the pages, one on the socket) | \(BenchmarkSupport.whole(kiosk.rate)) /s | \(control.map { BenchmarkSupport.whole($0.rate) + " /s" } ?? "") | \(control.map { BenchmarkSupport.ratio(kiosk.rate / $0.rate) } ?? "") | |")
            print("| kiosk page time (POST + redirected GET), \(who(clients, "respondent")) | p50 \(ms(kiosk.p50)), p99 \(ms(kiosk.p99)) | | | \(big ? "p99 < 20 ms" : "") |")
            print("| kiosk CPU per answer, \(who(clients, "respondent")) (\(String(format: "%.1f", Double(kiosk.requests) / Double(max(kiosk.answered, 1)))) requests per answer) | daemon \(µs(kiosk.serverMicros)) (\(µs(kiosk.serverMicrosPerRequest)) per request), load generator \(µs(kiosk.loadMicros)) | | | < 5 ms per page |")
        }
        for (clients, floor) in floors.socket {
            let daemon = socket.first { $0.clients == clients }?.load
            print("| bare floor, Unix socket, \(who(clients, "client")): CPU per request (requests/s) | \(µs(floor.serverMicros)) (\(BenchmarkSupport.whole(floor.rate)) /s) | daemon \(daemon.map { µs($0.serverMicros) } ?? "") per answer | \(daemon.map { BenchmarkSupport.ratio($0.serverMicros / floor.serverMicros) } ?? "") | |")
        }
        let goal = [1: "≤ 2", 64: "≤ 1.25"]
        for (clients, floor) in floors.pages {
            let daemon = pages.first { $0.clients == clients }?.load
            print("| floor, pages on TCP, \(who(clients, "respondent")): CPU per answer, per request (answers/s; p99 page) | \(µs(floor.serverMicros)), \(µs(floor.serverMicrosPerRequest)) (\(BenchmarkSupport.whole(floor.rate)) /s; \(ms(floor.p99))) | daemon \(daemon.map { µs($0.serverMicros) } ?? "") per answer | \(daemon.map { BenchmarkSupport.ratio($0.serverMicros / floor.serverMicros) } ?? "") | \(goal[clients] ?? "") |")
        }
    }

    /// A loopback port that was free a moment ago (the daemon is told it; it reports no port when
    /// its log level hides the ready line).
    static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: loadLoop).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }

    static func waitForPort(_ port: Int, what: String, child: BackgroundProcess) async throws {
        for _ in 0 ..< 1500 {
            if let channel = try? await ClientBootstrap(group: loadLoop).connect(host: "127.0.0.1", port: port).get() {
                try? await channel.close()
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchmarkError("\(what) did not listen on port \(port) within 30 s; stderr: \(child.errorOutput)")
    }
}

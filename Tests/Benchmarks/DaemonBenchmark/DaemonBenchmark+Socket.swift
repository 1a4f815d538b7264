#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import BenchmarkSupport
import ControlAPI
import Foundation
import NIOCore
import SurveyTesting

/// The answers through the control socket beside their floors: the bare handler and the durable
/// one (``FloorServer``), and a second pair of daemons, one with its journals encrypted, run in
/// alternation.
extension DaemonBenchmark {
    /// The four answers given to each session, as a respondent would type them.
    static let steps = [["Kim Minsu"], ["kim@example.com"], ["kim@example.com"], ["30"]]

    /// Each client sends its `bodies` one after another on its own connection to `socket`
    /// (``AnswerLoad``); the CPU of `server` and the bytes written to `device` are read around it.
    static func socketLoad(socket: String, bodies: [[ByteBuffer]], server: Int32, device: DeviceWrites?) async throws -> Measured {
        try await measure(server: server, device: device) {
            try await withThrowingTaskGroup(of: Measured.Client.self) { group in
                for client in bodies {
                    group.addTask {
                        let result = try await AnswerLoad.run(socket: socket, bodies: client, group: Self.loadLoop)
                        return Measured.Client(answered: result.answered, requests: result.answered, latencies: result.latencies)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
    }

    /// The answers of a daemon's row for the floors: as many, with the same values, each client's
    /// sessions named by fresh UUIDs (the floors keep no sessions and ignore them).
    static func floorBodies(clients: Int) -> [[ByteBuffer]] {
        (0 ..< clients).map { client in
            let sessions = sessionsPerRow[clients]! / clients + (client < sessionsPerRow[clients]! % clients ? 1 : 0)
            return (0 ..< sessions).flatMap { _ in
                let id = UUID().uuidString.lowercased()
                return steps.map { AnswerLoad.body(session: id, values: $0) }
            }
        }
    }

    /// A floor on a Unix socket: this executable run as ``FloorServer`` (`unix`, or `durable` with
    /// its journal in `directory/journal`).
    struct SocketFloor {
        let child: BackgroundProcess
        let socket: String

        init(durable: Bool, directory: String) async throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let me = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            socket = directory + "/floor.sock"
            let arguments = durable ? ["--floor-server", "durable", socket, directory + "/journal"] : ["--floor-server", "unix", socket]
            child = try await BackgroundProcess.start(me, arguments, deadline: childDeadline)
            _ = try await child.waitForLine(containing: "floor listening")
        }

        var pid: Int32 { child.pid }

        func load(clients: Int, device: DeviceWrites?) async throws -> Measured {
            try await socketLoad(socket: socket, bodies: floorBodies(clients: clients), server: pid, device: device)
        }

        func stop() async { await child.stop() }
    }

    /// Pairs in which a daemon with its journals in the clear and one with them encrypted
    /// (`--encryption-key-file`) each answer `clients` clients' sessions, back to back, alternating
    /// which goes first; both started afresh for this and running side by side.
    static func encryptionPairs(surveyd: URL, directory: String, serverURL: String, http: HTTPClient, clients: Int, pairs: Int) async throws -> [(plain: Measured, sealed: Measured)] {
        guard pairs > 0 else { return [] }
        let keyFile = directory + "/key"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data((0 ..< 32).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        let plain = try await Daemon(binary: surveyd, directory: directory + "/plain", serverURL: serverURL, inFlight: inFlight)
        let sealed = try await Daemon(binary: surveyd, directory: directory + "/sealed", serverURL: serverURL, inFlight: inFlight, keyFile: keyFile)
        let device = DeviceWrites(under: directory)
        func row(_ daemon: Daemon, _ what: String) async throws -> Measured {
            let (_, ids) = try await startSessions(control: ControlClient(socketPath: daemon.socket, httpClient: http), clients: clients, count: sessionsPerRow[clients]!)
            FileHandle.standardError.write(Data("timing answers of \(clients) clients, \(what), daemon pid \(daemon.pid)\n".utf8))
            return try await answers(socket: daemon.socket, sessions: ids, daemon: daemon.pid, device: device)
        }
        var results: [(plain: Measured, sealed: Measured)] = []
        do {
            try await plain.waitReady()
            try await sealed.waitReady()
            for pair in 0 ..< pairs {
                if pair % 2 == 0 {
                    let first = try await row(plain, "unencrypted")
                    results.append((first, try await row(sealed, "encrypted")))
                } else {
                    let first = try await row(sealed, "encrypted")
                    results.append((try await row(plain, "unencrypted"), first))
                }
            }
        } catch {
            await plain.stop()
            await sealed.stop()
            throw error
        }
        await plain.stop()
        await sealed.stop()
        return results
    }

    /// The socket's rows beside the durable floor's, and the encryption pairs.
    static func printSocketRows(socket: [(clients: Int, load: Measured)], durable: [(clients: Int, load: Measured)], pairs: [(plain: Measured, sealed: Measured)], pairClients: Int?) {
        func µs(_ value: Double) -> String { String(format: "%.0f µs", value) }
        func bytes(_ value: Double) -> String { value.isNaN ? "n/a" : String(format: "%.0f B", value) }
        func who(_ clients: Int) -> String { "\(clients) client\(clients == 1 ? "" : "s")" }
        let goal = [1: "≤ 1.5", 64: "≤ 1.25"]
        for (clients, floor) in durable {
            guard let daemon = socket.first(where: { $0.clients == clients })?.load else { continue }
            print("| durable floor, Unix socket, \(who(clients)): CPU per answer | daemon \(µs(daemon.serverMicros)) | durable floor \(µs(floor.serverMicros)) | \(BenchmarkSupport.ratio(daemon.serverMicros / floor.serverMicros)) | \(goal[clients] ?? "") |")
            print("| durable floor, Unix socket, \(who(clients)): answers/s | daemon \(BenchmarkSupport.whole(daemon.rate)) /s | durable floor \(BenchmarkSupport.whole(floor.rate)) /s | \(BenchmarkSupport.ratio(daemon.rate / floor.rate)) | |")
            print("| device bytes written per answer, \(who(clients)) | daemon \(bytes(daemon.deviceBytes)) | durable floor \(bytes(floor.deviceBytes)) | \(BenchmarkSupport.ratio(daemon.deviceBytes / floor.deviceBytes)) | |")
        }
        guard let pairClients, !pairs.isEmpty else { return }
        for (index, pair) in pairs.enumerated() {
            let order = index % 2 == 0 ? "unencrypted first" : "encrypted first"
            print("| encrypted ÷ unencrypted, pair \(index + 1) (\(order)), \(who(pairClients)): daemon CPU per answer (answers/s) | \(µs(pair.sealed.serverMicros)) (\(BenchmarkSupport.whole(pair.sealed.rate)) /s) | \(µs(pair.plain.serverMicros)) (\(BenchmarkSupport.whole(pair.plain.rate)) /s) | \(BenchmarkSupport.ratio(pair.sealed.serverMicros / pair.plain.serverMicros)) | |")
        }
        // All pairs together: total CPU over total answers, each side.
        let sealed = pairs.reduce(0) { $0 + $1.sealed.serverMicros * Double($1.sealed.answered) } / Double(pairs.reduce(0) { $0 + $1.sealed.answered })
        let plain = pairs.reduce(0) { $0 + $1.plain.serverMicros * Double($1.plain.answered) } / Double(pairs.reduce(0) { $0 + $1.plain.answered })
        let sealedBytes = pairs.reduce(0) { $0 + $1.sealed.deviceBytes } / Double(pairs.count)
        let plainBytes = pairs.reduce(0) { $0 + $1.plain.deviceBytes } / Double(pairs.count)
        print("| **encrypted ÷ unencrypted, \(pairs.count) pairs together, \(who(pairClients)): daemon CPU per answer** | \(µs(sealed)) | \(µs(plain)) | **\(BenchmarkSupport.ratio(sealed / plain))** | ≤ 1.05 |")
        print("| encrypted, unencrypted: device bytes written per answer, \(who(pairClients)) (mean of the pairs) | \(bytes(sealedBytes)) | \(bytes(plainBytes)) | | |")
    }
}

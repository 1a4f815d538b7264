import ArgumentParser
import AsyncHTTPClient
import Entities
import Foundation
import Logging
import MockServer
import NIOHTTP1
import Networking
import NIOCore

/// Uploads per second against the mock server on loopback: through `SurveyClient` with the
/// connectivity check on every call (verdict reused for the default 1 s, and with reuse 0 so that
/// every call makes a TCP connect), beside a bare AsyncHTTPClient loop with no check.
@main
struct NetworkingBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Uploads per second to the mock server on loopback: through SurveyClient with its connectivity check, beside a bare AsyncHTTPClient loop.")
    static let uploads = 3000

    @Argument(help: "The mock server's fixtures directory.") var fixturesPath = "mock"

    func run() async throws {
        let uploads = Self.uploads
        let fixtures = URL(fileURLWithPath: fixturesPath)
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let running = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: fixtures), logger: logger)
        let port = running.port
        let http = AsyncHTTPClientTransport.makeClient(connectTimeout: .seconds(2))
        let answers = AnswersUpload(answers: [
            "name": .string("Kim"), "email": .string("kim@example.com"), "emailConfirm": .string("kim@example.com"),
            "age": .integer(30), "like": .integer(6),
        ])
        let body = try JSONEncoder().encode(answers)
        let base = "http://127.0.0.1:\(port)"

        func bare() async throws -> Double {
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0 ..< uploads {
                var request = HTTPClientRequest(url: base + "/api/answers/common?lang=ko")
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                request.headers.add(name: "Idempotency-Key", value: UUID().uuidString)
                request.body = .bytes(ByteBuffer(bytes: body))
                let response = try await http.execute(request, timeout: .seconds(10))
                _ = try await response.body.collect(upTo: 1 << 20)
                precondition(response.status == .ok)
            }
            return Double(uploads) / (clock.now - start).seconds
        }

        func client(reuse: Duration, probe: any ConnectivityProbe = TCPConnectProbe(host: "127.0.0.1", port: port)) async throws -> Double {
            let client = SurveyClient(
                configuration: SurveyClientConfiguration(baseURL: URL(string: base)!),
                transport: AsyncHTTPClientTransport(client: http),
                connectivity: ConnectivityMonitor(probe: probe, reuse: reuse),
                logger: logger)
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0 ..< uploads {
                _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: answers, idempotencyKey: UUID().uuidString)
            }
            return Double(uploads) / (clock.now - start).seconds
        }

        _ = try await bare() // warm-up
        let baseline = try await bare()
        let unchecked = try await client(reuse: .seconds(1), probe: AlwaysOnline())
        let checked = try await client(reuse: .seconds(1))
        let everyCall = try await client(reuse: .zero)
        print("uploads per run: \(uploads), sequential, loopback, release build")
        print("| path | uploads/s | ratio to bare |")
        print("|---|---:|---:|")
        print(String(format: "| bare AsyncHTTPClient, no check | %.0f | 1.00 |", baseline))
        print(String(format: "| SurveyClient, probe always online (client cost, no check) | %.0f | %.2f |", unchecked, unchecked / baseline))
        print(String(format: "| SurveyClient, check reused 1 s (default) | %.0f | %.2f |", checked, checked / baseline))
        print(String(format: "| SurveyClient, TCP check every call | %.0f | %.2f |", everyCall, everyCall / baseline))
        try await http.shutdown()
        try await running.stop()
    }
}

/// A probe that never touches the network: isolates the client's own cost from the check's.
struct AlwaysOnline: ConnectivityProbe {
    func isReachable() async -> Bool { true }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

import Entities
import Foundation
import AsyncHTTPClient
import NIOCore
import Logging
import NIOHTTP1
import SurveyTesting
import Synchronization
import Testing
@testable import MockServer

@Suite(.timeLimit(.minutes(5))) struct RoutingTests {
    let routing = try! JSONDecoder().decode(Routing.self, from: Data(contentsOf: PackagePaths.fixture("routing.json")))

    @Test(arguments: [(7, "1"), (4, "1"), (3, "2"), (1, "2")])
    func commonRoutesOnLike(like: Int, next: String) {
        #expect(routing.next(after: "common", answers: ["like": .integer(like)]) == next)
    }

    @Test func finalStagesEndAndMissingAnswersFallThrough() {
        #expect(routing.next(after: "1", answers: [:]) == nil)
        #expect(routing.next(after: "2", answers: ["like": .integer(7)]) == nil)
        #expect(routing.next(after: "common", answers: [:]) == "2")
        #expect(routing.next(after: "unknown", answers: [:]) == nil)
    }

    @Test func equalsAndMaxRules() throws {
        let json = #"{"s": {"rules": [{"answer": "a", "equals": "yes", "next": "x"}, {"answer": "n", "min": 1, "max": 3, "next": "y"}], "otherwise": "z"}}"#
        let custom = try JSONDecoder().decode(Routing.self, from: Data(json.utf8))
        #expect(custom.next(after: "s", answers: ["a": .string("yes")]) == "x")
        #expect(custom.next(after: "s", answers: ["a": .string("no"), "n": .number(2.5)]) == "y")
        #expect(custom.next(after: "s", answers: ["n": .integer(4)]) == "z")
    }
}

@Suite(.timeLimit(.minutes(5))) struct FaultStateTests {
    @Test func sharesAreDeterministic() {
        var faults = Faults()
        faults.unavailableShare = 0.25
        var state = FaultState(faults: faults)
        let actions = (0 ..< 8).map { _ in state.next(isUpload: false) }
        #expect(actions.filter { $0 == .unavailable }.count == 2)
        #expect(actions.filter { $0 == .pass }.count == 6)
    }

    @Test func rejectOnlyHitsUploads() {
        var faults = Faults()
        faults.rejectShare = 1
        var state = FaultState(faults: faults)
        #expect(state.next(isUpload: false) == .pass)
        #expect(state.next(isUpload: true) == .reject)
    }

    @Test func badSharesAreNamed() {
        var faults = Faults()
        faults.hangShare = 2
        #expect(faults.problem?.contains("hangShare") == true)
    }
}

@Suite(.timeLimit(.minutes(5))) struct MockServerHTTPTests {
    func withServer(_ body: (MockSurveyServer, Int) async throws -> Void) async throws {
        let running = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: PackagePaths.mock), logger: Logger(label: "mock"))
        do { try await body(running.server, running.port) } catch {
            try? await running.stop()
            throw error
        }
        try await running.stop()
    }

    func request(_ port: Int, _ method: String, _ path: String, body: String? = nil) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .init(rawValue: method)
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: bytes))
    }

    @Test func badRequestsGetJSONErrorsAndTheServerStaysUp() async throws {
        try await withServer { _, port in
            let cases: [(String, String, String?, Int)] = [
                ("GET", "/api/question/nope?lang=ko", nil, 404),
                ("GET", "/api/question/common?lang=xx", nil, 404),
                ("GET", "/api/question/..%2Fsecret", nil, 404),
                ("POST", "/api/answers/common", "not json", 400),
                ("POST", "/api/answers/common", #"{"answers": 3}"#, 400),
                ("POST", "/api/answers/common", #"{"answers": {"name": "Kim"}}"#, 400),
                ("POST", "/api/answers/nope", #"{"answers": {}}"#, 404),
                ("POST", "/admin/faults", #"{"hangShare": 5}"#, 400),
            ]
            for (method, path, body, status) in cases {
                let (got, text) = try await request(port, method, path, body: body)
                #expect(got == status, "\(method) \(path)")
                #expect(text.contains("\"message\""), "\(method) \(path)")
            }
            let (health, _) = try await request(port, "GET", "/healthz")
            #expect(health == 200)
            let (missing, text) = try await request(port, "POST", "/api/answers/common", body: #"{"answers": {"name": "Kim"}}"#)
            #expect(missing == 400)
            #expect(text.contains("email") && text.contains("like"))
        }
    }

    @Test func adminEndpointSetsFaults() async throws {
        try await withServer { server, port in
            let (status, _) = try await request(port, "POST", "/admin/faults", body: #"{"serverErrorShare": 1}"#)
            #expect(status == 200)
            let (faulted, _) = try await request(port, "GET", "/api/question/common")
            #expect(faulted == 500)
            server.setFaults(Faults())
            let (ok, _) = try await request(port, "GET", "/api/question/common?lang=en")
            #expect(ok == 200)
        }
    }

    @Test func builtBinaryPrintsItsPort() async throws {
        let binary = PackagePaths.executable("mock-survey-server")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build mock-survey-server first")
        let server = try await BackgroundProcess.start(binary, ["--fixtures", PackagePaths.mock.path, "--port", "0"], deadline: .seconds(60))
        let line = try await server.waitForLine(containing: "listening on", timeout: .seconds(30))
        defer { server.send(SIGKILL) }
        #expect(line.hasPrefix("listening on 127.0.0.1:"))
        let port = try #require(Int(line.split(separator: ":").last ?? ""))
        let (status, _) = try await request(port, "GET", "/healthz")
        #expect(status == 200)
    }
}

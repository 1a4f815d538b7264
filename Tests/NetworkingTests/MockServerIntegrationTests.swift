import AsyncHTTPClient
import Entities
import Foundation
import Logging
import MockServer
import NIOCore
import SurveyTesting
import Testing
@testable import Networking

/// The real client against the real mock server on loopback port 0, in process.
@Suite(.timeLimit(.minutes(5))) struct MockServerIntegrationTests {
    /// Runs a mock server and a client for `body`, then stops both.
    func withServer(faults: Faults = Faults(), readTimeout: Duration = .seconds(10), record: URL? = nil, deviceID: String? = nil,
                    _ body: (SurveyClient, MockSurveyServer, Int) async throws -> Void) async throws {
        let running = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: PackagePaths.mock, recordFile: record, faults: faults), logger: Logger(label: "mock"))
        let server = running.server, port = running.port
        let http = AsyncHTTPClientTransport.makeClient(connectTimeout: .seconds(2))
        do {
            let client = SurveyClient(
                configuration: SurveyClientConfiguration(baseURL: URL(string: "http://127.0.0.1:\(port)")!, readTimeout: readTimeout, deviceID: deviceID),
                transport: AsyncHTTPClientTransport(client: http),
                connectivity: ConnectivityMonitor(probe: TCPConnectProbe(host: "127.0.0.1", port: port), reuse: .zero),
                logger: Logger(label: "client"))
            try await body(client, server, port)
        } catch {
            try? await http.shutdown()
            try? await running.stop()
            throw error
        }
        try await http.shutdown()
        try await running.stop()
    }

    static let commonAnswers = AnswersUpload(answers: [
        "name": .string("Kim"), "email": .string("kim@example.com"), "emailConfirm": .string("kim@example.com"),
        "age": .integer(30), "like": .integer(6),
    ])

    @Test(arguments: ["ko", "en"])
    func fetchesBothLanguages(lang: String) async throws {
        try await withServer { client, _, _ in
            let questionnaire = try await client.fetchQuestionnaire(typeID: "common", lang: lang)
            #expect(questionnaire.forms.map(\.name) == ["name", "email", "emailConfirm", "age", "like"])
        }
    }

    /// The fleet headers reach the server: the record file keeps the device id and the sequence
    /// number of each upload; without them the record has neither.
    @Test func deviceIdAndSequenceAreSentAndRecorded() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let record = dir.appending("record.jsonl")
        let before = Date()
        try await withServer(record: record, deviceID: "kiosk-7") { client, _, _ in
            _ = try await client.uploadAnswers(typeID: "common", lang: "ko", body: .init(bytes: Self.commonAnswers.encoded()), idempotencyKey: "key-1", sequence: 42)
            _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: Self.commonAnswers, idempotencyKey: "key-2")
            _ = try await client.uploadAnswers(typeID: "common", lang: "ko", body: .init(bytes: Self.commonAnswers.encoded()), idempotencyKey: "key-3", sequence: 43, extraHeaders: ["Survey-Consent": "0123456789abcdef", "Idempotency-Key": "forged"])
        }
        let lines = try String(contentsOf: record, encoding: .utf8).split(separator: "\n")
        let recorded = try lines.map { try JSONDecoder().decode(RecordedSubmission.self, from: Data($0.utf8)) }
        #expect(recorded.map(\.deviceId) == ["kiosk-7", "kiosk-7", "kiosk-7"])
        #expect(recorded.map(\.sequence) == ["42", nil, "43"])
        #expect(recorded.map(\.consent) == [nil, nil, "0123456789abcdef"], "the consent version goes only with the uploads that carry one")
        #expect(recorded.map(\.idempotencyKey) == ["key-1", "key-2", "key-3"], "an extra header never replaces one of the contract's")
        // When each arrived, to the millisecond, in order.
        let arrivals = recorded.compactMap { $0.receivedAt.flatMap { try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0) } }
        #expect(arrivals.count == 3 && arrivals[0] <= arrivals[1] && arrivals[1] <= arrivals[2], "\(recorded.map(\.receivedAt))")
        #expect(arrivals.allSatisfy { $0 >= before.addingTimeInterval(-0.001) && $0 <= Date() }, "\(arrivals), test began \(before)")
    }

    @Test func uploadRoutesToTheNextStageAndReplayIsRecordedOnce() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let record = dir.appending("record.jsonl")
        try await withServer(record: record) { client, server, _ in
            let first = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: Self.commonAnswers, idempotencyKey: "key-1")
            #expect(first.nextTypeId == "1")
            let replay = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: Self.commonAnswers, idempotencyKey: "key-1")
            #expect(replay == first)
            var low = Self.commonAnswers
            low.answers["like"] = .integer(2)
            let other = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: low, idempotencyKey: "key-2")
            #expect(other.nextTypeId == "2")
            do throws(NetworkError) {
                _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: low, idempotencyKey: "key-1")
                Issue.record("a reused key with another body must fail")
            } catch {
                #expect(error.status == 422)
                #expect(!error.isTransient)
            }
            #expect(server.acceptedCount == 2)
        }
        let lines = try String(contentsOf: record, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
    }

    @Test func missingRequiredAnswersArePermanentAndNamed() async throws {
        try await withServer { client, _, _ in
            do throws(NetworkError) {
                _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: AnswersUpload(answers: ["name": .string("Kim")]), idempotencyKey: "k")
                Issue.record("expected 400")
            } catch {
                #expect(error.status == 400)
                #expect(error.code == .rejectedRequest)
                #expect(error.message.contains("emailConfirm"))
            }
        }
    }

    @Test func unknownTypeIDIs404() async throws {
        try await withServer { client, _, _ in
            do throws(NetworkError) { _ = try await client.fetchQuestionnaire(typeID: "nope", lang: "ko"); Issue.record("expected 404") } catch {
                #expect(error.status == 404)
                #expect(!error.isTransient)
            }
        }
    }

    @Test(arguments: [
        ("unavailable", NetworkError.Code.serverBusy, 503),
        ("tooMany", .serverBusy, 429),
        ("serverError", .serverBusy, 500),
        ("malformed", .undecodableResponse, 200),
        ("reject", .rejectedAnswers, 200),
    ])
    func injectedFaultsAreClassified(fault: String, code: NetworkError.Code, status: Int) async throws {
        var faults = Faults()
        switch fault {
        case "unavailable": faults.unavailableShare = 1; faults.retryAfterSeconds = 7
        case "tooMany": faults.tooManyRequestsShare = 1
        case "serverError": faults.serverErrorShare = 1
        case "malformed": faults.malformedShare = 1
        default: faults.rejectShare = 1
        }
        try await withServer(faults: faults) { client, server, _ in
            do throws(NetworkError) {
                _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: Self.commonAnswers, idempotencyKey: UUID().uuidString)
                Issue.record("expected \(code)")
            } catch {
                #expect(error.code == code)
                #expect(error.status == status)
                if fault == "unavailable" { #expect(error.retryAfter == .seconds(7)) }
            }
            // Faults off at run time: the same upload goes through.
            server.setFaults(Faults())
            _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: Self.commonAnswers, idempotencyKey: UUID().uuidString)
        }
    }

    @Test func aHangingServerIsATimeout() async throws {
        var faults = Faults()
        faults.hangShare = 1
        try await withServer(faults: faults, readTimeout: .milliseconds(300)) { client, _, _ in
            do throws(NetworkError) { _ = try await client.fetchQuestionnaire(typeID: "common", lang: "ko"); Issue.record("expected a timeout") } catch {
                #expect(error.code == .timeout)
                #expect(error.isTransient)
            }
        }
    }

    @Test func aStoppedServerIsSeenOffline() async throws {
        let running = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: PackagePaths.mock), logger: Logger(label: "mock"))
        let port = running.port
        let probe = TCPConnectProbe(host: "127.0.0.1", port: port)
        let byName = TCPConnectProbe(host: "localhost", port: port)
        #expect(await probe.isReachable())
        #expect(await byName.isReachable())
        try await running.stop()
        #expect(await byName.isReachable() == false)
        let http = AsyncHTTPClientTransport.makeClient(connectTimeout: .seconds(1))
        let counting = CountingTransport(AsyncHTTPClientTransport(client: http))
        let client = SurveyClient(
            configuration: SurveyClientConfiguration(baseURL: URL(string: "http://127.0.0.1:\(port)")!),
            transport: counting,
            connectivity: ConnectivityMonitor(probe: probe),
            logger: Logger(label: "client"))
        do { _ = try await client.fetchQuestionnaire(typeID: "common", lang: "ko"); Issue.record("expected offline") } catch {
            #expect(error.code == .offline)
        }
        #expect(counting.requests.isEmpty)
        #expect(await client.connectivityStatus.state == .offline)
        try await http.shutdown()
    }
}

/// Records requests and passes them to a real transport.
final class CountingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let fake: FakeTransport
    init(_ inner: any HTTPTransport) {
        self.inner = inner
        fake = FakeTransport { _ in TransportResponse(status: 599) }
    }
    var requests: [TransportRequest] { fake.requests }
    func send(_ request: TransportRequest, timeout: Duration) async throws(NetworkError) -> TransportResponse {
        _ = try? await fake.send(request, timeout: timeout)
        return try await inner.send(request, timeout: timeout)
    }
}

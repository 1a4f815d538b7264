import Entities
import Foundation
import Logging
import NIOCore
import SurveyTesting
import Synchronization
import Testing
@testable import Networking

@Suite(.timeLimit(.minutes(5))) struct SurveyClientTests {
    static let questionnaire = try! Data(contentsOf: PackagePaths.fixture("questions/common.ko.json"))
    static let accepted = AnswersResult(isSuccess: true, nextTypeId: "1").encodedResponse()
    static let upload = AnswersUpload(answers: ["name": .string("Kim"), "age": .integer(30)])

    func makeClient(_ transport: FakeTransport, reachable: Bool = true, tokenFile: String? = nil) -> SurveyClient {
        SurveyClient(
            configuration: SurveyClientConfiguration(baseURL: URL(string: "http://127.0.0.1:9")!, tokenFile: tokenFile),
            transport: transport,
            connectivity: ConnectivityMonitor(probe: FixedProbe(reachable: reachable)),
            logger: Logger(label: "test")
        )
    }

    func uploadError(status: Int, headers: [String: String] = [:], body: Data = Data(#"{"message": "refused"}"#.utf8)) async -> NetworkError? {
        let client = makeClient(FakeTransport { _ in TransportResponse(status: status, headers: headers, body: body) })
        do {
            _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: Self.upload, idempotencyKey: "k")
            return nil
        } catch { return error }
    }

    @Test(arguments: [
        (408, NetworkError.Code.serverBusy, true),
        (429, .serverBusy, true),
        (500, .serverBusy, true),
        (502, .serverBusy, true),
        (503, .serverBusy, true),
        (599, .serverBusy, true),
        (400, .rejectedRequest, false),
        (404, .rejectedRequest, false),
        (409, .rejectedRequest, false),
        (422, .rejectedRequest, false),
        (401, .unauthorized, false),
        (403, .unauthorized, false),
    ])
    func statusesAreClassified(status: Int, code: NetworkError.Code, transient: Bool) async {
        let error = await uploadError(status: status)
        #expect(error?.code == code)
        #expect(error?.isTransient == transient)
        #expect(error?.status == status)
    }

    @Test func retryAfterIsCarriedOnTheError() async {
        let error = await uploadError(status: 503, headers: ["Retry-After": "17"])
        #expect(error?.retryAfter == .seconds(17))
        #expect(error?.message.contains("503") == true)
    }

    @Test(arguments: [NetworkError.Code.connectionFailed, .timeout])
    func transportFailuresAreTransient(code: NetworkError.Code) async {
        let client = makeClient(FakeTransport { _ throws(NetworkError) in throw NetworkError(code, "boom") })
        do {
            _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: Self.upload, idempotencyKey: "k")
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == code)
            #expect(error.isTransient)
        }
    }

    @Test func isSuccessFalseIsPermanent() async {
        let error = await uploadError(status: 200, body: AnswersResult(isSuccess: false).encodedResponse())
        #expect(error?.code == .rejectedAnswers)
        #expect(error?.isTransient == false)
        #expect(error?.message.contains("isSuccess: false") == true)
    }

    /// The server's own reply (its envelope, or a body it declared as JSON) that cannot be read:
    /// the outcome is unknown, which the delivery worker retries a few times under the same key.
    @Test(arguments: [
        ("not json", ["Content-Type": "application/json"]),
        ("{\"status\": 200, \"data\": ", ["Content-Type": "application/json; charset=utf-8"]),
        ("{\"status\":200,\"data\":{\"isSuccess\":\"yes\"}}", [:]),
        ("{\"status\":500,\"data\":{}}", ["Content-Type": "text/plain"]),
    ])
    func theServersUnreadableRepliesLeaveTheOutcomeUnknown(body: String, headers: [String: String]) async {
        let error = await uploadError(status: 200, headers: headers, body: Data(body.utf8))
        #expect(error?.code == .undecodableResponse, "\(String(describing: error))")
        #expect(error?.isTransient == false)
        #expect(error?.message.contains("same Idempotency-Key") == true)
    }

    @Test func brokenQuestionnaireIsAPermanentDefinitionError() async throws {
        let broken = try Data(contentsOf: PackagePaths.fixture("broken/unknown-form-type.json"))
        let client = makeClient(FakeTransport { _ in TransportResponse(status: 200, body: broken) })
        await #expect(throws: NetworkError.self) { _ = try await client.fetchQuestionnaire(typeID: "common", lang: "ko") }
        do { _ = try await client.fetchQuestionnaire(typeID: "common", lang: "ko") } catch {
            #expect(error.code == .invalidDefinition)
            #expect(!error.isTransient)
        }
    }

    @Test func uploadSendsIdempotencyKeyBodyAndHeaders() async throws {
        let transport = FakeTransport { _ in TransportResponse(status: 200, body: Self.accepted) }
        let client = makeClient(transport)
        let result = try await client.uploadAnswers(typeID: "common", lang: "en", answers: Self.upload, idempotencyKey: "6F1C-KEY")
        #expect(result.nextTypeId == "1")
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url == "http://127.0.0.1:9/api/answers/common?lang=en")
        #expect(request.headers["Idempotency-Key"] == "6F1C-KEY")
        #expect(request.headers["User-Agent"] == "surveyd")
        #expect(try AnswersUpload.decode(Data(request.body?.readableBytesView ?? ByteBuffer().readableBytesView)) == Self.upload)
        #expect(request.body == ByteBuffer(bytes: Self.upload.encoded()), "the same bytes a queued body holds")
    }

    @Test func aStoredBodyIsSentByteForByte() async throws {
        let transport = FakeTransport { _ in TransportResponse(status: 200, body: Self.accepted) }
        let client = makeClient(transport)
        let stored = ByteBuffer(string: #"{"answers":{"age":30,"name":"Kim"}}"#)
        _ = try await client.uploadAnswers(typeID: "common", lang: "ko", body: stored, idempotencyKey: "k")
        _ = try await client.uploadAnswers(typeID: "common", lang: "ko", body: stored, idempotencyKey: "k")
        #expect(transport.requests.map(\.body) == [stored, stored])
        #expect(transport.requests.allSatisfy { $0.headers["Content-Type"] == "application/json" && $0.headers["Idempotency-Key"] == "k" })
    }

    @Test func offlineSendsNothing() async {
        let transport = FakeTransport { _ in TransportResponse(status: 200, body: Self.accepted) }
        let client = makeClient(transport, reachable: false)
        do {
            _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: Self.upload, idempotencyKey: "k")
            Issue.record("expected offline")
        } catch {
            #expect(error.code == .offline)
            #expect(error.isTransient)
        }
        await #expect(throws: NetworkError.self) { _ = try await client.fetchQuestionnaire(typeID: "common", lang: "ko") }
        #expect(transport.requests.isEmpty)
        #expect(await client.connectivityStatus.state == .offline)
    }

    @Test(arguments: ["../admin", "a/b", "common?x=1", "", ".", "..", "공통 1", String(repeating: "a", count: 129)])
    func typeIDsThatAreNotOnePathSegmentSendNothing(typeID: String) async {
        let transport = FakeTransport { _ in TransportResponse(status: 200, headers: [:], body: Self.questionnaire) }
        let client = makeClient(transport)
        do {
            _ = try await client.fetchQuestionnaireResponse(typeID: typeID, lang: "ko")
            Issue.record("fetched \(typeID)")
        } catch {
            #expect(error.code == .rejectedRequest && !error.isTransient)
            #expect(error.message.contains("letters, digits, - and _"))
        }
        do {
            _ = try await client.uploadAnswers(typeID: typeID, lang: "ko", answers: Self.upload, idempotencyKey: "k")
            Issue.record("uploaded to \(typeID)")
        } catch {
            #expect(error.code == .rejectedRequest)
        }
        #expect(transport.requests.isEmpty)
        #expect(throws: Never.self) { try SurveyClient.checkTypeID("common_2-b") }
    }

    @Test func concurrentFetchesShareOneRequest() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let transport = FakeTransport { _ in
            for await _ in gate.stream { break }
            return TransportResponse(status: 200, body: Self.questionnaire)
        }
        let client = makeClient(transport)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0 ..< 20 {
                group.addTask { try await client.fetchQuestionnaire(typeID: "common", lang: "ko").forms.count }
            }
            // Let every fetch join before the one request is answered.
            while transport.requests.isEmpty { await Task.yield() }
            for _ in 0 ..< 50 { await Task.yield() }
            gate.continuation.yield()
            var counts: [Int] = []
            for try await count in group { counts.append(count) }
            #expect(counts.count == 20)
            #expect(Set(counts).count == 1)
        }
        #expect(transport.requests.count == 1)
        // A later fetch is a new request.
        gate.continuation.yield()
        _ = try await client.fetchQuestionnaire(typeID: "common", lang: "ko")
        #expect(transport.requests.count == 2)
    }

    @Test func tokenIsReadAgainOnceAfter401() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("token")
        try "old\n".write(to: file, atomically: true, encoding: .utf8)
        let transport = FakeTransport { request in
            request.headers["Authorization"] == "Bearer new" ? TransportResponse(status: 200, body: Self.accepted) : TransportResponse(status: 401, body: Data(#"{"message": "bad token"}"#.utf8))
        }
        let client = makeClient(transport, tokenFile: file.path)
        await #expect(throws: NetworkError.self) {
            _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: Self.upload, idempotencyKey: "k")
        }
        #expect(transport.requests.count == 2)
        try "new".write(to: file, atomically: true, encoding: .utf8)
        _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: Self.upload, idempotencyKey: "k")
        #expect(transport.requests.map { $0.headers["Authorization"] } == ["Bearer old", "Bearer old", "Bearer old", "Bearer new"])
    }

    @Test func badBaseURLIsAConfigurationError() async {
        let client = SurveyClient(
            configuration: SurveyClientConfiguration(baseURL: URL(string: "ftp://example")!),
            transport: FakeTransport { _ in TransportResponse(status: 200) },
            connectivity: ConnectivityMonitor(probe: FixedProbe(reachable: true)),
            logger: Logger(label: "test"))
        do { _ = try await client.fetchQuestionnaire(typeID: "common", lang: "ko") } catch {
            #expect(error.code == .configuration)
            #expect(error.message.contains("ftp://example"))
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct ConnectivityMonitorTests {
    @Test func verdictIsReusedWithinTheWindowAndChangesAreRecorded() async {
        let probe = CountingProbe()
        let now = ManualClock()
        let monitor = ConnectivityMonitor(probe: probe, reuse: .seconds(1), clock: { now.now.withLock { $0 } })
        #expect(await monitor.status.state == .unknown)
        #expect(await monitor.isReachable())
        #expect(await monitor.isReachable())
        #expect(probe.count.withLock { $0 } == 1)
        let firstChange = await monitor.status
        #expect(firstChange.state == .online)
        probe.answer.withLock { $0 = false }
        now.now.withLock { $0 += .milliseconds(1001) }
        #expect(await monitor.isReachable() == false)
        #expect(probe.count.withLock { $0 } == 2)
        #expect(await monitor.status.state == .offline)
        await monitor.invalidate()
        #expect(await monitor.isReachable() == false)
        #expect(probe.count.withLock { $0 } == 3)
    }

    @Test func routeLookupNeedsNoPacket() {
        #expect(TCPConnectProbe.hasRoute(toNumericHost: "127.0.0.1", port: 80) == true)
        #expect(TCPConnectProbe.hasRoute(toNumericHost: "survey.example", port: 80) == nil)
        #expect(TCPConnectProbe.routed([]).isEmpty)
    }

    @Test func hostNamesAreResolvedBeforeTheRouteCheck() {
        let addresses = TCPConnectProbe.resolve("localhost", port: 8080)
        #expect(addresses.contains { $0.ipAddress == "127.0.0.1" && $0.port == 8080 })
        #expect(TCPConnectProbe.routed(addresses).contains { $0.ipAddress == "127.0.0.1" })
        #expect(TCPConnectProbe.resolve("", port: 80).isEmpty)
    }

    @Test func probeFromBaseURL() throws {
        let https = try #require(TCPConnectProbe(baseURL: URL(string: "https://survey.example/api")!))
        #expect(https.host == "survey.example" && https.port == 443)
        let http = try #require(TCPConnectProbe(baseURL: URL(string: "http://127.0.0.1:8080")!))
        #expect(http.host == "127.0.0.1" && http.port == 8080)
        #expect(TCPConnectProbe(baseURL: URL(string: "file:///tmp")!) == nil)
    }
}

import Entities
import Foundation
import Logging
import SurveyTesting
import Testing
@testable import Networking

/// `reloadToken()` (the daemon's SIGHUP): the next request reads the token file again.
@Suite(.timeLimit(.minutes(5))) struct SurveyClientTokenReloadTests {
    @Test func aReloadReadsTheTokenFileAtTheNextRequest() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.appending("token")
        try "old\n".write(to: file, atomically: true, encoding: .utf8)
        let accepted = AnswersResult(isSuccess: true, nextTypeId: nil).encodedResponse()
        let transport = FakeTransport { _ in TransportResponse(status: 200, body: accepted) }
        let client = SurveyClient(
            configuration: SurveyClientConfiguration(baseURL: URL(string: "http://127.0.0.1:9")!, tokenFile: file.path),
            transport: transport, connectivity: ConnectivityMonitor(probe: FixedProbe(reachable: true)), logger: Logger(label: "test"))
        let upload = AnswersUpload(answers: ["name": .string("Kim")])
        _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: upload, idempotencyKey: "a")
        try "new\n".write(to: file, atomically: true, encoding: .utf8)
        // Without a reload the token read first is kept.
        _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: upload, idempotencyKey: "b")
        await client.reloadToken()
        _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: upload, idempotencyKey: "c")
        #expect(transport.requests.map { $0.headers["Authorization"] } == ["Bearer old", "Bearer old", "Bearer new"])
    }
}

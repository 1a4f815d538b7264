import AsyncHTTPClient

import Entities
import Foundation
import Logging
import MockServer
import SurveyTesting
import Testing
@testable import Networking

/// The real client (AsyncHTTPClient on loopback) with a token file, behind a mock server playing
/// a captive portal that redirects to another origin (another port on loopback): neither the
/// token nor the answers ever reach that origin, for any redirect status, and nothing is recorded.
@Suite(.timeLimit(.minutes(5))) struct RedirectOriginTests {
    static let answers = AnswersUpload(answers: [
        "name": .string("Kim"), "email": .string("kim@example.com"), "emailConfirm": .string("kim@example.com"),
        "age": .integer(30), "like": .integer(6),
    ])

    @Test(arguments: [301, 302, 303, 307, 308])
    func noTokenOrAnswerFollowsARedirectToAnotherOrigin(status: Int) async throws {
        let elsewhere = try TCPListener()
        defer { elsewhere.stop() }
        let dir = try TemporaryDirectory(prefix: "redirect")
        defer { dir.remove() }
        let tokenFile = dir.path + "/token"
        try "secret-token-\(status)".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let record = URL(fileURLWithPath: dir.path + "/record.jsonl")
        var faults = Faults()
        faults.portal = .redirect
        faults.portalRedirectStatus = status
        faults.portalLoginURL = "http://127.0.0.1:\(elsewhere.port)/login"
        let running = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: PackagePaths.mock, recordFile: record, faults: faults), logger: Logger(label: "mock"))
        let http = AsyncHTTPClientTransport.makeClient(connectTimeout: .seconds(2))
        do {
            let configuration = SurveyClientConfiguration(baseURL: URL(string: "http://127.0.0.1:\(running.port)")!, readTimeout: .seconds(10), tokenFile: tokenFile)
            let transport = AsyncHTTPClientTransport(client: http)
            let token = BearerTokenFile(path: tokenFile)
            let monitor = ConnectivityMonitor(
                probe: TCPConnectProbe(host: "127.0.0.1", port: running.port), reuse: .zero,
                identity: QuestionnaireIdentityCheck(transport: transport, configuration: configuration, token: token, stage: "common", lang: "en"))
            let client = SurveyClient(configuration: configuration, transport: transport, connectivity: monitor, token: token, logger: Logger(label: "client"))

            for attempt in 1 ... 2 {
                do {
                    _ = try await client.uploadAnswers(typeID: "common", lang: "en", answers: Self.answers, idempotencyKey: "key-\(status)")
                    Issue.record("\(status): the upload went through the portal")
                } catch {
                    #expect(error.code == .notTheServer, "\(status) attempt \(attempt): \(error)")
                }
            }
            do {
                _ = try await client.fetchQuestionnaire(typeID: "common", lang: "en")
                Issue.record("\(status): a questionnaire came through the portal")
            } catch {
                #expect(error.code == .notTheServer, "\(status): \(error)")
            }
            let state = await monitor.status
            #expect(state.state == .portal && state.portal?.redirect == "http://127.0.0.1:\(elsewhere.port)/login", "\(state)")

            // The portal steps aside: the same upload, under the same key, is delivered once.
            running.server.setFaults(Faults())
            let result = try await client.uploadAnswers(typeID: "common", lang: "en", answers: Self.answers, idempotencyKey: "key-\(status)")
            #expect(result.isSuccess)
            #expect(await monitor.status.state == .online)
        } catch {
            try? await http.shutdown()
            try? await running.stop()
            throw error
        }
        try await http.shutdown()
        try await running.stop()
        #expect(elsewhere.connections == 0, "\(status): the other origin was contacted")
        #expect(elsewhere.bytes.isEmpty, "\(status): the other origin received \(elsewhere.bytes.count) bytes")
        let lines = (try? String(contentsOf: record, encoding: .utf8))?.split(separator: "\n") ?? []
        #expect(lines.count == 1, "\(status): delivered once, after the portal: \(lines)")
    }
}

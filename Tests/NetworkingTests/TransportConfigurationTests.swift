import AsyncHTTPClient
import Entities
import Foundation
import Logging
import NIOCore
import SurveyTesting
import Testing
@testable import Networking

/// The client configuration's timeouts reach the HTTP client and every request; none of this needs a network.
@Suite(.timeLimit(.minutes(5))) struct TransportConfigurationTests {
    static let baseURL = URL(string: "http://127.0.0.1:9")!

    @Test func theConfiguredConnectTimeoutIsTheHTTPClientsOne() {
        let configured = SurveyClientConfiguration(baseURL: Self.baseURL, connectTimeout: .milliseconds(1500))
        #expect(AsyncHTTPClientTransport.clientConfiguration(for: configured).timeout.connect == .milliseconds(1500))
        let defaults = SurveyClientConfiguration(baseURL: Self.baseURL)
        #expect(defaults.connectTimeout == .seconds(5))
        #expect(AsyncHTTPClientTransport.clientConfiguration(for: defaults).timeout.connect == .seconds(5))
    }

    @Test func requestsAreNotTraced() {
        let configuration = AsyncHTTPClientTransport.clientConfiguration(for: SurveyClientConfiguration(baseURL: Self.baseURL))
        #expect(configuration.tracing.tracer == nil)
    }

    @Test func hugeTimeoutsSaturateInsteadOfTrapping() async throws {
        #expect(TimeAmount(saturating: .seconds(Int64.max)) == .nanoseconds(Int64.max))
        #expect(TimeAmount(saturating: .seconds(Int64.min)) == .nanoseconds(Int64.min))
        #expect(TimeAmount(saturating: .milliseconds(2500)) == .milliseconds(2500))
        #expect(TimeAmount(saturating: .nanoseconds(7)) == .nanoseconds(7))
        // This used to trap converting seconds · 1e9 to Int64.
        let client = AsyncHTTPClientTransport.makeClient(connectTimeout: .seconds(Int64.max / 2))
        try await client.shutdown()
    }

    @Test func everyRequestIsSentWithTheReadTimeout() async throws {
        let questionnaire = try Data(contentsOf: PackagePaths.fixture("questions/common.ko.json"))
        let accepted = AnswersResult(isSuccess: true, nextTypeId: "1").encodedResponse()
        let transport = FakeTransport { request in
            TransportResponse(status: 200, headers: [:], body: request.method == "GET" ? questionnaire : accepted)
        }
        let client = SurveyClient(
            configuration: SurveyClientConfiguration(baseURL: Self.baseURL, readTimeout: .seconds(7)),
            transport: transport,
            connectivity: ConnectivityMonitor(probe: FixedProbe(reachable: true)),
            logger: Logger(label: "test"))
        _ = try await client.fetchQuestionnaire(typeID: "common", lang: "ko")
        _ = try await client.uploadAnswers(typeID: "common", lang: "ko", answers: AnswersUpload(answers: ["name": .string("Kim")]), idempotencyKey: "k")
        #expect(transport.requests.count == 2)
        #expect(transport.timeouts == [.seconds(7), .seconds(7)])
    }
}

import AsyncHTTPClient
import ControlAPI
import Entities
import Foundation
import HTTPTypes
import Logging
import MockServer
import Networking
import Storage
@testable import SurveyDaemon
import SurveyTesting
import Testing

/// Questionnaires through the real client from the mock server on loopback, kept in a real
/// definition cache; then the server stops and the cache answers.
@Suite(.timeLimit(.minutes(5))) struct ServerDefinitionSourceTests {
    @Test func theCacheAnswersWhileTheServerIsDownAndAnUnknownStageIsA404() async throws {
        try await withSource(fixtures: PackagePaths.mock) { source, cache, mock in
            let online = try await source.definition(stage: "common", language: "en")
            #expect(online.questionnaire.forms.first?.name == "name")
            #expect(try cache.current(typeID: "common", language: "en")?.hash == online.hash)
            do {
                _ = try await source.definition(stage: "nope", language: "en")
                Issue.record("an unknown stage was loaded")
            } catch let error as DefinitionSourceError {
                let reply = ControlError(SessionError(error))
                #expect(error.code == .noSuchStage && reply.status == 404 && reply.code == "no_such_stage")
                #expect(error.message.contains("nope") && error.message.contains("--type"))
            }

            try await mock.stop()
            let offline = try await source.definition(stage: "common", language: "en")
            #expect(offline.hash == online.hash, "the cached questionnaire, with the hash sessions record")
            #expect(try await source.cachedDefinition(hash: online.hash, stage: "common")?.hash == online.hash)
            do {
                _ = try await source.definition(stage: "2", language: "ko")
                Issue.record("a stage never fetched was loaded while offline")
            } catch let error as DefinitionSourceError {
                let reply = ControlError(SessionError(error))
                #expect(error.code == .unavailable && reply.status == 503 && reply.code == "definition_unavailable")
                #expect(error.message.contains("connect surveyd to the server once"))
            }
        }
    }

    /// The decoded questionnaire is reused only for the same bytes: when the server publishes a
    /// new version, the next session gets it, with its own hash, and the cache's pointer moves.
    @Test func aNewVersionFromTheServerReplacesTheRememberedOne() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let fixtures = URL(fileURLWithPath: dir.path + "/mock")
        try FileManager.default.copyItem(at: PackagePaths.mock, to: fixtures)
        try await withSource(fixtures: fixtures) { source, cache, _ in
            let first = try await source.definition(stage: "common", language: "en")
            let again = try await source.definition(stage: "common", language: "en")
            #expect(again == first)
            let file = fixtures.appendingPathComponent("questions/common.en.json")
            let text = try String(contentsOf: file, encoding: .utf8)
            try text.replacingOccurrences(of: "Please enter your name.", with: "Your full name, please.").write(to: file, atomically: true, encoding: .utf8)

            let changed = try await source.definition(stage: "common", language: "en")
            #expect(changed.hash != first.hash)
            #expect(changed.questionnaire.forms.first?.question == "Your full name, please.")
            #expect(try cache.current(typeID: "common", language: "en")?.hash == changed.hash)
            // The first version stays readable by hash, for sessions that began with it.
            #expect(try await source.cachedDefinition(hash: first.hash, stage: "common")?.questionnaire.forms.first?.question == "Please enter your name.")
        }
    }

    /// A server that accepts the request and never answers: the start uses the cached copy once
    /// the deadline passes, while the fetch still waits; it ends when the server stops.
    @Test func aHangingServerStartsFromTheCacheWhileTheFetchWaits() async throws {
        try await withSource(fixtures: PackagePaths.mock, deadline: .milliseconds(200)) { source, cache, mock in
            let online = try await source.definition(stage: "common", language: "en")
            await source.settleFetches()
            var faults = Faults()
            faults.hangShare = 1
            mock.server.setFaults(faults)
            let cached = try await source.definition(stage: "common", language: "en")
            #expect(cached.hash == online.hash)
            #expect(await source.shared.fetches.inFlight == 1, "the fetch still waits for the server")
            try await mock.stop()
            await source.settleFetches()
            #expect(await source.shared.fetches.inFlight == 0)
            #expect(try cache.current(typeID: "common", language: "en")?.hash == online.hash)
        }
    }

    /// A portal's page in the server's place, a 403 or 404 page included, never hides the cached
    /// questionnaire: the respondent starts from it, and connectivity is `portal`.
    @Test(arguments: [Faults.Portal.status403, .status404, .html, .empty])
    func aPortalsPageStartsFromTheCachedQuestionnaire(portal: Faults.Portal) async throws {
        try await withSource(fixtures: PackagePaths.mock, identity: true) { source, _, mock in
            let online = try await source.definition(stage: "common", language: "en")
            await source.settleFetches()
            var faults = Faults()
            faults.portal = portal
            mock.server.setFaults(faults)
            let cached = try await source.definition(stage: "common", language: "en")
            #expect(cached.hash == online.hash, "\(portal)")
            #expect(await source.client.connectivityStatus.state == .portal, "\(portal)")
            #expect(await source.problems().isEmpty, "a portal's page is no questionnaire with errors")
        }
    }

    /// One stage's questionnaire served as an empty body, while the server answers its identity
    /// check: that stage is `definition_invalid`, another stage never fetched starts, and
    /// connectivity stays online.
    @Test func oneBrokenQuestionnaireIsThatStagesProblemOnly() async throws {
        try await withSource(fixtures: PackagePaths.mock, identity: true) { source, _, mock in
            var faults = Faults()
            faults.emptyQuestionnaireStage = "1"
            mock.server.setFaults(faults)
            do {
                _ = try await source.definition(stage: "1", language: "en")
                Issue.record("an empty body was taken for a questionnaire")
            } catch let error as DefinitionSourceError {
                let reply = ControlError(SessionError(error))
                #expect(error.code == .invalid && reply.code == "definition_invalid", "\(error)")
            }
            #expect(await source.problems().map(\.stage) == ["1"])
            let other = try await source.definition(stage: "2", language: "en")
            #expect(!other.questionnaire.forms.isEmpty)
            #expect(await source.client.connectivityStatus.state == .online)
        }
    }

    /// Runs `body` with a definition source on a real client and cache against a mock server
    /// serving `fixtures` (stopped afterwards, also when `body` already stopped it); with
    /// `identity`, the connectivity monitor checks the server's identity as the daemon's does.
    func withSource(fixtures: URL, deadline: Duration = .seconds(60), identity: Bool = false, _ body: (ServerDefinitionSource, DefinitionCache, InProcessMockServer) async throws -> Void) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let logger = Logger(label: "definitions")
        let mock = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: fixtures), logger: logger)
        let http = AsyncHTTPClientTransport.makeClient(connectTimeout: .seconds(2))
        do {
            let configuration = SurveyClientConfiguration(baseURL: URL(string: "http://127.0.0.1:\(mock.port)")!)
            let transport = AsyncHTTPClientTransport(client: http)
            let check = identity ? QuestionnaireIdentityCheck(transport: transport, configuration: configuration, token: BearerTokenFile(path: nil), stage: "common", lang: "en") : nil
            let client = SurveyClient(
                configuration: configuration,
                transport: transport,
                connectivity: ConnectivityMonitor(probe: TCPConnectProbe(host: "127.0.0.1", port: mock.port), reuse: .zero, identity: check),
                logger: logger)
            let cache = try DefinitionCache(directory: dir.path + "/definitions")
            let source = ServerDefinitionSource(client: client, cache: cache, deadline: deadline, logger: logger)
            try await withFetchesRunning(source) { try await body(source, cache, mock) }
        } catch {
            try? await http.shutdown()
            try? await mock.stop()
            throw error
        }
        try await http.shutdown()
        try await mock.stop()
    }
}

import Entities
import Foundation
import Logging
import NIOCore
import NIOSSL
import SurveyTesting
import Synchronization
import Testing
@testable import Networking

/// Replies that are not the survey server's (a captive portal's page, a redirect, 511, a TLS
/// certificate for another name) are `notTheServer`: transient, never a refusal; the monitor's
/// state becomes `portal`, and no upload is sent until its identity check finds the server again.
@Suite(.timeLimit(.minutes(5))) struct PortalReplyTests {
    static let accepted = AnswersResult(isSuccess: true, nextTypeId: "1").encodedResponse()
    static let upload = AnswersUpload(answers: ["name": .string("Kim")])
    static let base = URL(string: "http://127.0.0.1:9")!

    /// An identity check that answers what the test sets.
    final class ScriptedIdentity: ServerIdentityCheck {
        let answer = Mutex(ServerIdentity.notTheServer(answer: "login page", redirect: nil))
        let calls = Mutex(0)
        func identify() async -> ServerIdentity {
            calls.withLock { $0 += 1 }
            return answer.withLock { $0 }
        }
    }

    func client(_ transport: FakeTransport, identity: (any ServerIdentityCheck)? = nil) -> (SurveyClient, ConnectivityMonitor) {
        let monitor = ConnectivityMonitor(probe: FixedProbe(reachable: true), reuse: .zero, identity: identity)
        let client = SurveyClient(configuration: SurveyClientConfiguration(baseURL: Self.base), transport: transport, connectivity: monitor, logger: Logger(label: "test"))
        return (client, monitor)
    }

    static let portalReplies: [(String, TransportResponse)] = [
        ("200 text/html", TransportResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html><body>Log in</body></html>".utf8))),
        ("200 application/json {}", TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data("{}".utf8))),
        ("200 empty", TransportResponse(status: 200)),
        ("200 empty json", TransportResponse(status: 200, headers: ["Content-Type": "application/json"])),
        ("302 elsewhere", TransportResponse(status: 302, headers: ["Location": "http://127.0.0.1:8/login"])),
        ("307 elsewhere", TransportResponse(status: 307, headers: ["Location": "https://portal.example/login?from=x"])),
        ("307 same origin", TransportResponse(status: 307, headers: ["Location": "/login"])),
        ("511", TransportResponse(status: 511, headers: ["Content-Type": "text/html"], body: Data("<html>login</html>".utf8))),
    ]

    @Test(arguments: portalReplies)
    func anUploadAnsweredInTheServersPlaceIsNotTheServer(name: String, reply: TransportResponse) async throws {
        let transport = FakeTransport { _ in reply }
        let (client, monitor) = client(transport)
        do {
            _ = try await client.uploadAnswers(typeID: "common", lang: "en", answers: Self.upload, idempotencyKey: "k")
            Issue.record("\(name): taken for the server's reply")
        } catch {
            #expect(error.code == .notTheServer, "\(name): \(error)")
            #expect(error.isTransient, "\(name)")
            #expect(error.message.contains("accept its terms") || error.message.contains("accept the network's terms") || error.message.contains("login page"), "\(error.message)")
        }
        #expect(transport.requests.count == 1, "\(name): a redirect is never followed for an upload")
        let status = await monitor.status
        #expect(status.state == .portal, "\(name)")
        #expect(status.portal?.answer.isEmpty == false)
        if name.hasSuffix("elsewhere") {
            let location = try #require(reply.headers["location"])
            #expect(status.portal?.redirect == location, "the operator is told where it points")
        } else {
            #expect(status.portal?.redirect == nil)
        }
    }

    @Test func aRedirectToAnotherOriginTellsTheOperatorToSetServerURL() async {
        let transport = FakeTransport { _ in TransportResponse(status: 301, headers: ["Location": "https://surveys.example/"]) }
        let (client, _) = client(transport)
        do {
            _ = try await client.fetchQuestionnaire(typeID: "common", lang: "en")
            Issue.record("a cross-origin redirect was followed")
        } catch {
            #expect(error.code == .notTheServer)
            #expect(error.redirect == "https://surveys.example/")
            #expect(error.message.contains("set serverURL to it if that is the survey server"), "\(error.message)")
        }
        #expect(transport.requests.count == 1)
    }

    @Test func aGetRedirectedWithinTheOriginIsFollowedWithItsHeaders() async throws {
        let questionnaire = try Data(contentsOf: PackagePaths.fixture("questions/common.en.json"))
        let transport = FakeTransport { request in
            request.url.contains("/moved/") ? TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: questionnaire)
                : TransportResponse(status: 308, headers: ["Location": "/moved/api/question/common?lang=en"])
        }
        let (client, monitor) = client(transport)
        _ = try await client.fetchQuestionnaire(typeID: "common", lang: "en")
        #expect(transport.requests.map(\.url) == ["http://127.0.0.1:9/api/question/common?lang=en", "http://127.0.0.1:9/moved/api/question/common?lang=en"])
        #expect(await monitor.status.state == .online)
    }

    @Test func aQuestionnaireFetchAnsweredByALoginPageIsNotADefinitionError() async {
        let transport = FakeTransport { _ in TransportResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>Wi-Fi</html>".utf8)) }
        let (client, monitor) = client(transport)
        do {
            _ = try await client.fetchQuestionnaire(typeID: "common", lang: "en")
            Issue.record("a login page was taken for a questionnaire")
        } catch {
            #expect(error.code == .notTheServer, "\(error)")
        }
        #expect(await monitor.status.state == .portal)
    }

    /// Once something else answered, no upload is sent until the identity check finds the survey
    /// server itself; then uploads go on and the state is `online` again.
    @Test func noUploadIsSentUntilTheServerItselfAnswersAgain() async throws {
        let portal = Mutex(true)
        let transport = FakeTransport { _ in
            portal.withLock { $0 } ? TransportResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>login</html>".utf8))
                : TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Self.accepted)
        }
        let identity = ScriptedIdentity()
        let (client, monitor) = client(transport, identity: identity)
        await #expect(throws: NetworkError.self) { _ = try await client.uploadAnswers(typeID: "common", lang: "en", answers: Self.upload, idempotencyKey: "k") }
        #expect(transport.requests.count == 1)
        for _ in 0 ..< 3 {
            do {
                _ = try await client.uploadAnswers(typeID: "common", lang: "en", answers: Self.upload, idempotencyKey: "k")
                Issue.record("sent through the portal")
            } catch {
                #expect(error.code == .notTheServer && error.message.contains("nothing was sent"), "\(error)")
            }
        }
        #expect(transport.requests.count == 1, "no upload went out while the portal answers")
        #expect(identity.calls.withLock { $0 } == 4, "once at the first odd reply, then before each call")
        #expect(await monitor.status.state == .portal)

        portal.withLock { $0 = false }
        identity.answer.withLock { $0 = .server }
        let result = try await client.uploadAnswers(typeID: "common", lang: "en", answers: Self.upload, idempotencyKey: "k")
        #expect(result.nextTypeId == "1")
        #expect(await monitor.status.state == .online)
        #expect(await monitor.status.portal == nil)
        #expect(transport.requests.last?.headers["Idempotency-Key"] == "k")
    }

    @Test func theQuestionnaireIdentityCheckKnowsTheEnvelopeFromAPortal() async throws {
        let questionnaire = try Data(contentsOf: PackagePaths.fixture("questions/common.en.json"))
        let answers = Mutex(TransportResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html/>".utf8)))
        let transport = FakeTransport { _ in answers.withLock { $0 } }
        let check = QuestionnaireIdentityCheck(transport: transport, configuration: SurveyClientConfiguration(baseURL: Self.base), token: BearerTokenFile(path: nil), stage: "common", lang: "en")
        guard case .notTheServer = await check.identify() else { Issue.record("a login page passed"); return }
        answers.withLock { $0 = TransportResponse(status: 302, headers: ["Location": "http://10.0.0.1/login"]) }
        #expect(await check.identify() == .notTheServer(answer: "302 redirect to another origin, http://10.0.0.1/login", redirect: "http://10.0.0.1/login"))
        answers.withLock { $0 = TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: questionnaire) }
        #expect(await check.identify() == .server)
        #expect(transport.requests.allSatisfy { $0.method == "GET" && $0.url.hasSuffix("/api/question/common?lang=en") && $0.body == nil })
    }

    @Test func aCertificateForAnotherNameLooksLikeInterception() {
        #expect(AsyncHTTPClientTransport.looksIntercepted(NIOSSLExtraError.failedToValidateHostname))
        #expect(AsyncHTTPClientTransport.looksIntercepted(NIOSSLError.handshakeFailed(.sslError([]))))
        #expect(!AsyncHTTPClientTransport.looksIntercepted(NIOSSLError.uncleanShutdown))
        #expect(!AsyncHTTPClientTransport.looksIntercepted(CancellationError()))
    }
}

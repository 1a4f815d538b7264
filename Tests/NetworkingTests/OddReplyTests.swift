import Entities
import Foundation
import Logging
import Synchronization
import Testing
@testable import Networking

/// A reply is the survey server's only in the contract's JSON: a 4xx page (HTML, empty, `{}`) is
/// something in the way, never a refusal or the token's; and one odd reply is checked against the
/// server's identity at once before connectivity becomes `portal`.
@Suite(.timeLimit(.minutes(5))) struct OddReplyTests {
    static let upload = AnswersUpload(answers: ["name": .string("Kim")])
    static let base = URL(string: "http://127.0.0.1:9")!
    static let page = Data("<!doctype html><html><body>Blocked by the network's policy</body></html>".utf8)

    /// An identity check that answers what the test sets, counting its calls.
    final class Identity: ServerIdentityCheck {
        let answer: Mutex<ServerIdentity>
        let calls = Mutex(0)
        init(_ answer: ServerIdentity) { self.answer = Mutex(answer) }
        func identify() async -> ServerIdentity {
            calls.withLock { $0 += 1 }
            return answer.withLock { $0 }
        }
    }

    func client(_ transport: FakeTransport, identity: (any ServerIdentityCheck)?) -> (SurveyClient, ConnectivityMonitor) {
        let monitor = ConnectivityMonitor(probe: FixedProbe(reachable: true), reuse: .zero, identity: identity)
        return (SurveyClient(configuration: SurveyClientConfiguration(baseURL: Self.base), transport: transport, connectivity: monitor, logger: Logger(label: "test")), monitor)
    }

    static let pages: [(Int, String, TransportResponse)] = [
        (403, "html", TransportResponse(status: 403, headers: ["Content-Type": "text/html"], body: page)),
        (404, "html", TransportResponse(status: 404, headers: ["Content-Type": "text/html"], body: page)),
        (401, "html", TransportResponse(status: 401, headers: ["Content-Type": "text/html"], body: page)),
        (403, "empty", TransportResponse(status: 403)),
        (404, "{}", TransportResponse(status: 404, headers: ["Content-Type": "application/json"], body: Data("{}".utf8))),
        (400, "a JSON list", TransportResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data("[]".utf8))),
    ]

    /// Behind a portal (the identity check meets it too): pending, state `portal`; never the
    /// token's refusal nor a rejection, and a 401/403 says it may be the token all the same.
    @Test(arguments: pages)
    func aFourHundredPageIsSomethingInTheWay(status: Int, body: String, reply: TransportResponse) async throws {
        let identity = Identity(.notTheServer(answer: "the same page", redirect: nil))
        let (client, monitor) = client(FakeTransport { _ in reply }, identity: identity)
        do {
            _ = try await client.uploadAnswers(typeID: "common", lang: "en", answers: Self.upload, idempotencyKey: "k")
            Issue.record("\(status) \(body): taken for the server's reply")
        } catch {
            #expect(error.code == .notTheServer, "\(status) \(body): \(error)")
            #expect(error.isTransient)
            #expect(error.message.contains("refusing the token in a form surveyd does not expect") == (status == 401 || status == 403), "\(error.message)")
        }
        #expect(identity.calls.withLock { $0 } == 1, "checked against the server's identity once")
        let state = await monitor.status
        #expect(state.state == .portal)
        #expect(state.portal?.status == status)
        #expect(state.portal?.mayBeTokenRefusal == (status == 401 || status == 403))
        // The connectivity checks behind the portal keep what the first reply was.
        #expect(await !monitor.isReachable())
        #expect(identity.calls.withLock { $0 } == 2)
        #expect(await monitor.status.portal?.mayBeTokenRefusal == (status == 401 || status == 403))
    }

    /// The server's own refusal is JSON: the token's (401/403) and the request's (other 4xx).
    @Test(arguments: [(401, NetworkError.Code.unauthorized), (403, .unauthorized), (404, .rejectedRequest), (422, .rejectedRequest)])
    func aRefusalInJSONIsTheServers(status: Int, code: NetworkError.Code) async {
        let identity = Identity(.notTheServer(answer: "never asked", redirect: nil))
        let reply = TransportResponse(status: status, headers: ["Content-Type": "text/plain"], body: Data(#"{"message": "no"}"#.utf8))
        let (client, monitor) = client(FakeTransport { _ in reply }, identity: identity)
        do {
            _ = try await client.uploadAnswers(typeID: "common", lang: "en", answers: Self.upload, idempotencyKey: "k")
            Issue.record("accepted")
        } catch {
            #expect(error.code == code, "\(error)")
        }
        #expect(identity.calls.withLock { $0 } == 0)
        #expect(await monitor.status.state == .online)
    }

    /// One stage's questionnaire served broken while the server answers its identity check: that
    /// stage's definition error, and connectivity does not change.
    @Test func aBrokenQuestionnaireIsThatStagesOwnWhenTheServerAnswersItsIdentityCheck() async throws {
        let identity = Identity(.server)
        let (client, monitor) = client(FakeTransport { _ in TransportResponse(status: 200) }, identity: identity)
        do {
            _ = try await client.fetchQuestionnaire(typeID: "2", lang: "en")
            Issue.record("an empty body was taken for a questionnaire")
        } catch {
            #expect(error.code == .invalidDefinition, "\(error)")
            #expect(error.message.contains("this stage's questionnaire is broken on the server"), "\(error.message)")
        }
        #expect(identity.calls.withLock { $0 } == 1, "the identity check ran at once")
        #expect(await monitor.status.state == .online)
        #expect(await monitor.status.portal == nil)
    }

    /// An upload's odd reply while the server answers its identity check: the outcome is unknown
    /// (sent again under the same key), and connectivity does not change.
    @Test func anUploadsOddReplyIsUnknownWhenTheServerAnswersItsIdentityCheck() async throws {
        let identity = Identity(.server)
        let (client, monitor) = client(FakeTransport { _ in TransportResponse(status: 200, headers: ["Content-Type": "text/html"], body: Self.page) }, identity: identity)
        do {
            _ = try await client.uploadAnswers(typeID: "common", lang: "en", answers: Self.upload, idempotencyKey: "k")
            Issue.record("accepted")
        } catch {
            #expect(error.code == .undecodableResponse, "\(error)")
        }
        #expect(await monitor.status.state == .online)
    }

    /// The identity check takes a portal's 403 or 404 page for what it is, and the server's JSON
    /// refusal for the server.
    @Test func theIdentityCheckTellsAPortalsPageFromTheServersRefusal() async {
        let answer = Mutex(TransportResponse(status: 403, headers: ["Content-Type": "text/html"], body: Self.page))
        let check = QuestionnaireIdentityCheck(transport: FakeTransport { _ in answer.withLock { $0 } }, configuration: SurveyClientConfiguration(baseURL: Self.base), token: BearerTokenFile(path: nil), stage: "common", lang: "en")
        guard case .notTheServer = await check.identify() else { Issue.record("a 403 page passed for the server"); return }
        answer.withLock { $0 = TransportResponse(status: 404, headers: ["Content-Type": "text/html"], body: Self.page) }
        guard case .notTheServer = await check.identify() else { Issue.record("a 404 page passed for the server"); return }
        answer.withLock { $0 = TransportResponse(status: 401, headers: ["Content-Type": "application/json"], body: Data(#"{"message": "bad token"}"#.utf8)) }
        #expect(await check.identify() == .server)
    }

    @Test func whatIsTheServersRefusal() {
        #expect(ServerReply.refusalMismatch(TransportResponse(status: 404, body: Data(#"{"message": "x"}"#.utf8))) == nil)
        #expect(ServerReply.refusalMismatch(TransportResponse(status: 403, body: Data(#"{"status": 403, "data": null}"#.utf8))) == nil)
        for body in ["", "{}", "[]", "\"no\"", "<html>no</html>", "{\"message\": "] {
            #expect(ServerReply.refusalMismatch(TransportResponse(status: 403, body: Data(body.utf8))) != nil, "\(body)")
        }
    }
}

/// A clock that was not set holds uploads back only until it steps: the step makes the next call
/// ask again at once, however long the last verdict would otherwise be reused.
@Suite(.timeLimit(.minutes(2))) struct ClockStepRetryTests {
    @Test func aStepOfTheClockForgetsTheVerdictAtOnce() async {
        let identity = OddReplyTests.Identity(.certificate(.clockNotSet, answer: "not valid yet by this clock"))
        let monitor = ConnectivityMonitor(probe: FixedProbe(reachable: true), reuse: .seconds(3600), identity: identity)
        await monitor.sawSomethingElse(answer: "not valid yet by this clock", redirect: nil, kind: .clockNotSet)
        #expect(await monitor.status.state == .clockNotSet)
        #expect(await !monitor.isReachable(), "the verdict is reused")
        #expect(identity.calls.withLock { $0 } == 0)
        identity.answer.withLock { $0 = .server }
        monitor.clockWasSet()
        #expect(await monitor.isReachable(), "asked again at once after the step")
        #expect(identity.calls.withLock { $0 } == 1)
        #expect(await monitor.status.state == .online)
    }
}

/// The daemon is told each state that stands between it and the server, and its end, so that the
/// `connectivity_changed` event names it.
@Suite(.timeLimit(.minutes(2))) struct ObstacleEventTests {
    @Test func eachStateAndItsEndAreTold() async {
        let told = Mutex<[ConnectivityStatus.State]>([])
        let identity = OddReplyTests.Identity(.server)
        let monitor = ConnectivityMonitor(probe: FixedProbe(reachable: true), reuse: .zero, identity: identity, onPortal: { state in told.withLock { $0.append(state) } })
        await monitor.sawSomethingElse(answer: "not valid yet", redirect: nil, kind: .clockNotSet)
        await monitor.sawSomethingElse(answer: "not valid yet", redirect: nil, kind: .clockNotSet)
        await monitor.sawSomethingElse(answer: "403 text/html", redirect: nil, status: 403)
        #expect(await monitor.status.state == .portal)
        #expect(await monitor.isReachable())
        #expect(told.withLock { $0 } == [.clockNotSet, .portal, .online])
    }
}

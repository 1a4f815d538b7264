import ControlAPI
import Entities
import Foundation
import HTTPTypes
import Logging
import Networking
import Storage
@testable import SurveyDaemon
import SurveyTesting
import Synchronization
import Testing

/// A follow-up stage whose rule names an answer of an earlier stage (`sameAS "$email"`): its
/// questionnaire is decoded once per content hash whatever the sessions answered before, and the
/// reference is checked when a stage starts, against the session's answers.
@Suite(.timeLimit(.minutes(5))) struct DefinitionReferenceTests {
    /// `signup` asks an e-mail address and an optional phone number; `confirm` asks the address
    /// again; `nickname` asks no address.
    static let signup = Data(#"{"status":200,"data":{"forms":[{"name":"email","question":"E-mail?","required":true,"type":"text","placeholder":"","validate":[]},{"name":"phone","question":"Phone?","required":false,"type":"text","placeholder":"","validate":[]}],"escapeValidate":[]}}"#.utf8)
    static let confirm = Data(#"{"status":200,"data":{"forms":[{"name":"again","question":"E-mail again?","required":true,"type":"text","placeholder":"","validate":[{"type":"sameAS","target":"$email","validateText":"The e-mail addresses do not match."}]}],"escapeValidate":[]}}"#.utf8)
    static let nickname = Data(#"{"status":200,"data":{"forms":[{"name":"nick","question":"Nickname?","required":true,"type":"text","placeholder":"","validate":[]}],"escapeValidate":[]}}"#.utf8)
    static let missingEmail = #"stage "confirm", forms[0] "again", validate[0]: the sameAS rule refers to "$email", but no form has the name "email""#

    let dir: TemporaryDirectory
    let cache: DefinitionCache
    let journal = MemoryJournal()
    let queue = RecordingQueue()
    let clock = TestClock()
    let server = ScriptedServer { request in
        for (stage, body) in [("signup", Self.signup), ("confirm", Self.confirm), ("nickname", Self.nickname)] where request.url.contains("api/question/\(stage)?") {
            return ScriptedServer.ok(body)
        }
        return TransportResponse(status: 404, body: Data(#"{"message": "no such stage"}"#.utf8))
    }

    init() throws {
        dir = try TemporaryDirectory(prefix: "refs")
        cache = try DefinitionCache(directory: dir.path + "/definitions")
    }

    func source() -> ServerDefinitionSource {
        let client = SurveyClient(
            configuration: SurveyClientConfiguration(baseURL: URL(string: "http://survey.invalid")!),
            transport: server, connectivity: ConnectivityMonitor(probe: AlwaysReachable(), reuse: .seconds(3600)), logger: Logger(label: "test"))
        return ServerDefinitionSource(client: client, cache: cache, logger: Logger(label: "test"))
    }

    /// A manager whose completed stages are delivered at once: `signup` and `nickname` go on to
    /// `confirm`, which is the last stage.
    func manager(_ source: ServerDefinitionSource) -> SessionManager {
        let clock = clock
        let manager = SessionManager(
            journal: journal, definitions: source, queue: queue,
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .seconds(5)),
            now: { clock.now() }, logger: Logger(label: "test"))
        let queue = queue
        queue.onEnqueue.withLock {
            $0 = { submission in
                let state = SubmissionState.delivered(response: submission.stage == "confirm" ? nil : "confirm")
                queue.states.withLock { $0[submission.idempotencyKey] = state }
                Task { await manager.deliveryFinished(key: submission.idempotencyKey, state: state) }
            }
        }
        return manager
    }

    /// Decoded questionnaires the source keeps for the content hash of `bytes`.
    func decodedCopies(_ source: ServerDefinitionSource, of bytes: Data) -> Int {
        let hash = DefinitionCache.hash([UInt8](bytes))
        return source.memo.decoded.withLock { $0.keys.filter { $0.hash == hash }.count }
    }

    @Test func aQuestionnaireIsDecodedOnceWhateverTheSessionsAnsweredBefore() async throws {
        let source = source()
        let m = manager(source)
        // Two sessions reach `confirm` with different answers: one gave a phone number, one skipped it.
        let withPhone = try await m.start(StartSessionRequest(typeId: "signup"))
        let withoutPhone = try await m.start(StartSessionRequest(typeId: "signup"))
        #expect(try await m.answer(AnswerRequest(session: withPhone.id, values: ["kim@example.org"])).accepted)
        #expect(try await m.answer(AnswerRequest(session: withoutPhone.id, values: ["lee@example.org"])).accepted)
        let first = try await m.answer(AnswerRequest(session: withPhone.id, values: ["010-1234"]))
        let second = try await m.answer(AnswerRequest(session: withoutPhone.id, skip: true))
        for reply in [first, second] {
            #expect(reply.session.stage == "confirm" && reply.session.question?.name == "again", "\(reply.session)")
        }
        #expect(decodedCopies(source, of: Self.confirm) == 1, "one decode for both sessions")
        // Each session's answer is checked against its own earlier answer.
        #expect(try await m.answer(AnswerRequest(session: withoutPhone.id, values: ["kim@example.org"])).message == "The e-mail addresses do not match.")
        #expect(try await m.answer(AnswerRequest(session: withoutPhone.id, values: ["lee@example.org"])).session.outcome == "thanks")
        #expect(try await m.answer(AnswerRequest(session: withPhone.id, values: ["kim@example.org"])).session.outcome == "thanks")
        dir.remove()
    }

    @Test func aStageWhoseReferenceTheSessionLacksIsRefusedWithItsLocation() async throws {
        let source = source()
        let m = manager(source)
        do throws(SessionError) {
            _ = try await m.start(StartSessionRequest(typeId: "confirm"))
            Issue.record("a stage naming an answer the session lacks was started")
        } catch {
            let reply = ControlError(error)
            #expect(error.code == .definitionInvalid && reply.status == 503 && reply.code == "definition_invalid")
            #expect(error.message.contains(Self.missingEmail), "\(error.message)")
        }
        #expect(journal.events.withLock { $0.isEmpty }, "nothing journaled for the refused start")
        // The questionnaire itself is good: cached, not reported, and the same decoded copy serves
        // a session that has the answer.
        #expect(await source.problems().isEmpty)
        #expect(try cache.current(typeID: "confirm", language: "en")?.hash == DefinitionCache.hash([UInt8](Self.confirm)))
        let session = try await m.start(StartSessionRequest(typeId: "signup"))
        _ = try await m.answer(AnswerRequest(session: session.id, values: ["kim@example.org"]))
        let reply = try await m.answer(AnswerRequest(session: session.id, skip: true))
        #expect(reply.session.stage == "confirm")
        #expect(decodedCopies(source, of: Self.confirm) == 1)

        // A follow-up that names an answer the session never gave is not started: the session
        // ends as queued with the follow-up recorded, as when a follow-up cannot be loaded.
        let other = try await m.start(StartSessionRequest(typeId: "nickname"))
        let ended = try await m.answer(AnswerRequest(session: other.id, values: ["kimmy"]))
        #expect(ended.session.outcome == "queued" && ended.session.followUp == "confirm", "\(ended.session)")
        #expect(ended.session.completedStages == ["nickname"])
        dir.remove()
    }

    @Test func aRestoredSessionWhoseReferenceIsSatisfiedGoesOn() async throws {
        let first = manager(source())
        let session = try await first.start(StartSessionRequest(typeId: "signup"))
        _ = try await first.answer(AnswerRequest(session: session.id, values: ["kim@example.org"]))
        #expect(try await first.answer(AnswerRequest(session: session.id, skip: true)).session.stage == "confirm")

        // A restart: a new source (nothing decoded yet) reads the questionnaire from the cache.
        let restartedSource = source()
        let second = manager(restartedSource)
        try await second.restore()
        #expect(await second.restoreProblems.isEmpty)
        let view = try await second.view(id: session.id)
        #expect(view.stage == "confirm" && view.question?.name == "again")
        #expect(try await second.answer(AnswerRequest(session: session.id, values: ["lee@example.org"])).message == "The e-mail addresses do not match.")
        #expect(try await second.answer(AnswerRequest(session: session.id, values: ["kim@example.org"])).session.outcome == "thanks")
        #expect(decodedCopies(restartedSource, of: Self.confirm) == 1)
        dir.remove()
    }
}

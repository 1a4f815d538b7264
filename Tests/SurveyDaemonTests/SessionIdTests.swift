import ControlAPI
import Foundation
import HTTPTypes
import Logging
import ServiceLifecycle
@testable import SurveyDaemon
import SurveyTesting
import Testing

/// Session ids from clients are read whole: a valid id followed by anything names no session.
extension SessionManagerTests {
    /// Forms of a real session id that must not reach it.
    static func malformed(_ id: String) -> [String] {
        [
            id + "\u{0}", id + "\u{0}anything", id + "\u{0}" + id, id + "x", id + " ", " " + id, id + "\n",
            "{" + id + "}", String(id.dropLast()), id.replacingOccurrences(of: "-", with: ""),
            "urn:uuid:" + id, id + "0", "", "\u{0}",
        ]
    }

    @Test(.timeLimit(.minutes(5))) func aSessionIdWithAnythingAfterItIsNoSession() async throws {
        let m = manager()
        let started = try await m.start(StartSessionRequest())
        #expect(try await m.view(id: started.id).id == started.id)
        for id in Self.malformed(started.id) {
            do throws(SessionError) {
                _ = try await m.view(id: id)
                Issue.record("\(id.debugDescription) read as session \(started.id)")
            } catch {
                #expect(error.code == .noSuchSession && ControlError(error).status == 404 && ControlError(error).code == "no_such_session", "\(id.debugDescription): \(error)")
            }
            do throws(SessionError) {
                _ = try await m.answer(AnswerRequest(session: id, values: ["Kim"]))
                Issue.record("\(id.debugDescription) answered session \(started.id)")
            } catch {
                #expect(error.code == .noSuchSession && ControlError(error).status == 404 && ControlError(error).code == "no_such_session", "\(id.debugDescription): \(error)")
            }
        }
        #expect(try await m.view(id: started.id).current == 1, "nothing was answered")
        // Hex digits are read in either case (RFC 9562), as Foundation prints them.
        #expect(try await m.view(id: started.id.uppercased()).id == started.id)
        #expect(try await m.answer(AnswerRequest(session: started.id.uppercased(), values: ["Kim"])).accepted)
    }

    /// Over HTTP: `%00` in the path decodes to a NUL, which must not cut the id short.
    @Test(.timeLimit(.minutes(5))) func aPathWithAnEncodedNulAfterTheIdIsNoSession() async throws {
        let m = manager()
        let started = try await m.start(StartSessionRequest())
        try await withControlServer(backend: ManagerBackend(manager: m)) { path, _ in
        let found = try await ControlClient(socketPath: path).session(id: started.id)
        #expect(found.id == started.id)
        for target in ["/v1/sessions/\(started.id)%00anything", "/v1/sessions/\(started.id)%00", "/v1/sessions/%7B\(started.id)%7D"] {
            let reply = try await UnixHTTP.request(socket: path, method: "GET", target: target)
            #expect(reply.status == 404, "\(target)")
            #expect(try JSONDecoder().decode(ErrorReply.self, from: reply.body).error.code == "no_such_session", "\(target)")
        }
        let body = #"{"session":"\#(started.id)\u0000junk","values":["Kim"]}"#
        let answered = try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/answers", body: body)
        #expect(answered.status == 404)
        #expect(try JSONDecoder().decode(ErrorReply.self, from: answered.body).error.code == "no_such_session")
        #expect(try await m.view(id: started.id).current == 1, "nothing was answered")
        }
    }
}

/// The session part of the daemon's backend, over a real session manager.
struct ManagerBackend: ForwardingToFake {
    let manager: SessionManager
    let fake = FakeBackend()

    func startSession(_ request: StartSessionRequest) async throws -> SessionView { try await manager.start(request) }
    func answer(_ request: AnswerRequest) async throws -> AnswerReply { try await manager.answer(request) }
    func session(id: String) async throws -> SessionView { try await manager.view(id: id) }
    func openSessions() async throws -> [SessionView] { await manager.openSessions().map { $0.view() } }
    func status() async throws -> StatusView { throw ControlError.unavailable("not_here", "status is not part of this test") }
    func flush(_ request: FlushRequest) async throws -> FlushReply { throw ControlError.unavailable("not_here", "flush is not part of this test") }
    func deadLetters() async throws -> [DeadLetterView] { [] }
    func requeue(deadLetter id: String, _ request: RequeueRequest) async throws -> DeadLetterView { throw ControlError.notFound("no_such_dead_letter", "no dead letter \(id)") }
}

#if canImport(Glibc)
import Glibc
#endif
import ControlAPI
import Foundation
import SurveyDaemon
import SurveyTesting
import Testing

@Suite(.serialized, .timeLimit(.minutes(5))) struct ControlClientTests {
    @Test func clientTalksToTheServerOverTheSocket() async throws {
        try await withControlServer { path, backend in
            let client = ControlClient(socketPath: path)
            #expect(try await client.status().version == "test")
            #expect(try await client.startSession(StartSessionRequest(typeId: "common", lang: "en")).id == "s1")
            let reply = try await client.answer(AnswerRequest(session: "s1", values: ["extra", "craft cider"]))
            #expect(reply.accepted)
            #expect(await backend.answers.last == AnswerRequest(session: "s1", values: ["extra", "craft cider"], skip: false))
            #expect(try await client.flush(FlushRequest()).drained)
            #expect(try await client.deadLetters().isEmpty)
        }
    }

    /// `flush --wait` flushes once (a flush drops every backoff, Retry-After included) and then
    /// only reads the status (on each event, here only the stream's `hello`, and when the stream
    /// ends) until the queue is drained or the timeout passes.
    @Test func flushAndWaitFlushesOnceThenWatchesTheStatus() async throws {
        try await withControlServer { path, backend in
            let client = ControlClient(socketPath: path)
            await backend.script(pending: [3, 3, 2, 0])
            var seen: [Int] = []
            let drained = try await client.flushAndWait(timeout: .seconds(30)) { seen.append($0.pending) }
            #expect(drained.drained && drained.pending == 0)
            #expect(seen == [3, 3, 2])
            #expect(await backend.flushes == [FlushRequest(wait: false)])
            #expect(await backend.statusRequests == 3)

            await backend.script(pending: [1])
            let stuck = try await client.flushAndWait(timeout: .milliseconds(200))
            #expect(!stuck.drained && stuck.pending == 1)
            #expect(await backend.flushes.count == 2)
        }
    }

    @Test func apiErrorsCarryCodeAndMessage() async throws {
        try await withControlServer { path, _ in
            let client = ControlClient(socketPath: path)
            do throws(ControlClientError) {
                _ = try await client.session(id: "nope/../x")
                Issue.record("no error")
            } catch {
                #expect(error.kind == .api(status: 404, code: "no_such_session"))
                #expect(error.message == "no session nope/../x")
            }
        }
    }

    @Test func noDaemonIsReportedAsUnavailableWithAHint() async throws {
        let dir = try TemporaryDirectory(prefix: "nd")
        defer { dir.remove() }
        let client = ControlClient(socketPath: dir.appending("missing.sock").path)
        do throws(ControlClientError) {
            _ = try await client.status()
            Issue.record("no error")
        } catch {
            #expect(error.kind == .daemonUnavailable)
            #expect(error.message.hasPrefix("no surveyd answers on \(dir.appending("missing.sock").path)"))
            #expect(error.message.contains("Start it with `surveyd`"))
        }
    }

    /// A socket file nobody listens on (a daemon that was killed): the connection's own error
    /// says so at once, with its errno, and no connection is retried until the timeout.
    @Test(.timeLimit(.minutes(1))) func staleSocketIsReportedFromTheConnectError() async throws {
        let dir = try TemporaryDirectory(prefix: "st")
        defer { dir.remove() }
        let path = dir.appending("stale.sock").path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
            raw[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(fd)  // bound, never listened on, closed: connecting is refused
        // A timeout far beyond the test's patience: only a connect error that is not retried ends it.
        let client = ControlClient(socketPath: path, timeout: .seconds(600))
        do throws(ControlClientError) {
            _ = try await client.status()
            Issue.record("no error")
        } catch {
            #expect(error.kind == .daemonUnavailable)
            #expect(error.message.contains("ECONNREFUSED"), "\(error.message)")
        }
    }

    @Test func renderingShowsQuestionAcceptsAndOutcome() {
        let question = QuestionView(name: "tried", text: "Have you ever had alcohol-free beer?", type: "radio", required: true, accepts: ["1) yes (Yes)", "2) no (No)"], options: [])
        var session = SessionView(id: "abc", stage: "2", lang: "en", state: "asking", outcome: nil, current: 1, total: 4, question: question, completedStages: ["common"], followUp: nil, lastActivity: "t")
        #expect(Rendering.session(session) == [
            "session abc  stage 2 (en)  question 1 of 4",
            "",
            "  Have you ever had alcohol-free beer?",
            "  [tried, radio] accepts:",
            "    1) yes (Yes)",
            "    2) no (No)",
        ])
        session.state = "closed"
        session.question = nil
        session.outcome = "queued"
        session.followUp = "1"
        #expect(Rendering.session(session).last == "outcome: queued (delivered later; the server named stage 1 next)")
        #expect(Rendering.duration(93784) == "1d 2h")
        #expect(Rendering.duration(125) == "2m 5s")
    }
}

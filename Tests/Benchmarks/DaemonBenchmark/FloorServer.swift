import BenchmarkSupport
import ControlAPI
import Entities
import Foundation
import Hummingbird
import Logging
import Mustache
import NIOCore
import Storage
import Synchronization

/// The framework's floor: a bare Hummingbird handler doing only what every answer needs, run in a
/// child process of the benchmark (`DaemonBenchmark --floor-server unix PATH` or
/// `--floor-server tcp TEMPLATES`) so that its CPU time is read from `/proc` like the daemon's,
/// and loaded by the same clients as the daemon.
///
/// - `unix PATH`: `POST /v1/answers` on a Unix socket reads the body as the daemon does (the
///   simple reader of `AnswerRequest`, else `JSONDecoder`) and replies with an accepted
///   `AnswerReply` written as the daemon writes it (`JSONOutput`): no session, no journal.
/// - `tcp TEMPLATES`: the walk of ``KioskLoad`` on loopback. `GET /` renders the welcome template
///   and sets a cookie on the first visit, `POST /start`, `/answer` and `/reset` read the form body
///   strictly enough to find their fields and redirect (303), `GET /question` renders the question
///   template for the browser's position. The templates are the kiosk's own files, loaded from
///   `TEMPLATES` (`Modules/Kiosk/Resources`) into a `MustacheLibrary`, with page values of the
///   same shape as the kiosk's. No session logic, no CSRF check, no durability.
///
/// It prints `floor listening PORT` (0 on a Unix socket) when it accepts connections.
enum FloorServer {
    static func run(_ arguments: [String]) async throws {
        let router = Router()
        let address: BindAddress
        var journaled: Journal?
        defer { journaled?.close(then: {}) }
        switch (arguments.first, arguments.count) {
        case ("unix", 2):
            address = .unixDomainSocket(path: arguments[1])
            router.post("/v1/answers") { request, _ in try await answer(request) }
        case ("durable", 3):
            address = .unixDomainSocket(path: arguments[1])
            var logger = Logger(label: "floor")
            logger.logLevel = .error
            let journal = try Journal(directory: arguments[2], options: JournalOptions(), logger: logger)
            journaled = journal
            router.post("/v1/answers") { request, _ in try await answer(request, journal: journal) }
        case ("tcp", 2):
            address = .hostname("127.0.0.1", port: 0)
            try FloorPages(templates: URL(fileURLWithPath: arguments[1])).register(on: router)
        default:
            throw BenchmarkError("usage: DaemonBenchmark --floor-server unix PATH | durable PATH JOURNAL_DIRECTORY | tcp TEMPLATE_DIRECTORY")
        }
        let app = Application(
            router: router,
            configuration: .init(address: address, serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                FileHandle.standardOutput.write(Data("floor listening \(port)\n".utf8))
            }
        )
        try await app.runService()
    }

    /// The control socket's answer, without the session behind it; with `journal`, its body is
    /// appended there (durably) before the reply.
    static func answer(_ request: Request, journal: Journal? = nil) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: 1 << 16)
        if let journal { _ = try await journal.append(type: 1, payload: Array(buffer.readableBytesView)) }
        let parsed = AnswerRequest(simpleJSON: buffer.readableBytesView)
        let answer = try parsed ?? JSONDecoder().decode(AnswerRequest.self, from: Data(buffer.readableBytesView))
        let reply = AnswerReply(accepted: true, message: nil, session: SessionView(
            id: answer.session ?? "", stage: "common", lang: "en", state: "asking", outcome: nil, current: 2, total: 5,
            question: QuestionView(name: "email", text: "Your e-mail address?", type: "text", required: true, accepts: ["free text"], options: []),
            completedStages: [], followUp: nil, lastActivity: "2026-11-23T22:00:00Z"
        ))
        var out = JSONOutput(escapesSlashes: false)
        reply.write(to: &out)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: out.bytes)))
    }
}

#if canImport(Glibc)
import Glibc
#endif
import ControlAPI
import Entities
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import ServiceLifecycle
@testable import SurveyDaemon
import SurveyTesting
import Synchronization
import Testing

/// A backend that answers from fixed values and records what it was asked.
actor FakeBackend: ControlBackend {
    var answers: [AnswerRequest] = []
    /// For each answer, whether it was handled on an event loop's thread.
    var answeredOnLoop: [Bool] = []
    var flushes: [FlushRequest] = []
    var requeues: [(id: String, request: RequeueRequest)] = []
    var statusRequests = 0
    /// The pending counts that flush and the following status replies report, one each; the last repeats.
    var pendingScript: [Int] = [0]

    func script(pending: [Int]) { pendingScript = pending }

    func nextPending() -> Int {
        pendingScript.count > 1 ? pendingScript.removeFirst() : pendingScript[0]
    }
    static let session = SessionView(id: "s1", stage: "common", lang: "en", state: "asking", outcome: nil, current: 1, total: 5, question: nil, completedStages: [], followUp: nil, lastActivity: "2026-01-01T00:00:00Z")

    func startSession(_ request: StartSessionRequest) async throws -> SessionView {
        if request.typeId == "missing" {
            throw ControlError.unavailable("definition_unavailable", "no questionnaire for stage missing")
        }
        return Self.session
    }
    func answer(_ request: AnswerRequest) async throws -> AnswerReply {
        answers.append(request)
        answeredOnLoop.append(MultiThreadedEventLoopGroup.currentEventLoop != nil)
        if request.question == "old" {
            throw ControlError(status: 409, code: "question_changed", "session s1 no longer asks the question \"old\"", session: Self.session)
        }
        return AnswerReply(accepted: true, message: nil, session: Self.session)
    }
    func session(id: String) async throws -> SessionView {
        guard id == "s1" else { throw ControlError.notFound("no_such_session", "no session \(id)") }
        return Self.session
    }
    func openSessions() async throws -> [SessionView] { [Self.session] }
    func status() async throws -> StatusView {
        statusRequests += 1
        return StatusView(version: "test", startedAt: "2026-01-01T00:00:00Z", uptimeSeconds: 1,
                   connectivity: .init(state: "unknown", since: nil),
                   queue: .init(pending: nextPending(), inFlight: 0, dead: 0, delivered: 0, oldestPendingAgeSeconds: nil, lastDeliveryAt: nil, nextRetryAt: nil),
                   journalProblems: [], sessions: [])
    }
    func flush(_ request: FlushRequest) async throws -> FlushReply {
        flushes.append(request)
        let pending = nextPending()
        return FlushReply(pending: pending, dead: 0, drained: pending == 0, connectivity: "online")
    }
    /// For each listing of the dead letters, whether it was made on an event loop's thread.
    var deadLettersOnLoop: [Bool] = []
    func deadLetters() async throws -> [DeadLetterView] {
        deadLettersOnLoop.append(MultiThreadedEventLoopGroup.currentEventLoop != nil)
        return []
    }
    func requeue(deadLetter id: String, _ request: RequeueRequest) async throws -> DeadLetterView {
        requeues.append((id, request))
        guard id == "7" else { throw ControlError.notFound("no_such_dead_letter", "no dead letter \(id)") }
        return DeadLetterView(id: "7", stage: "1", lang: "en", reason: "isSuccess: false", idempotencyKey: "k2", queuedAt: "2026-01-01T00:00:00Z", outcome: "rejected", previousIdempotencyKey: request.key == .keep ? nil : "k1")
    }
}

/// The control servers' loop in tests: one thread, as the daemon gives its control server, so
/// that connections are accepted and registered in the order they were made.
let controlTestLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

/// Runs a control server on a fresh socket for the duration of `body`.
func withControlServer(maxRequestBytes: Int = 4096, socketGroup: (name: String, gid: UInt32)? = nil, limits: ControlConnectionLimits = .init(), backend: any ControlBackend = FakeBackend(), _ body: (String, FakeBackend) async throws -> Void) async throws {
    let dir = try TemporaryDirectory(prefix: "cs")
    defer { dir.remove() }
    let path = dir.appending("d.sock").path
    let server = ControlServer(socketPath: path, socketGroup: socketGroup, maxRequestBytes: maxRequestBytes, limits: limits, backend: backend, eventLoopGroup: controlTestLoop, logger: Logger(label: "test"))
    let claim = try server.prepareSocketPath()
    defer { claim.release() }
    try await serving(server, claim: claim) { try await body(path, backend as? FakeBackend ?? FakeBackend()) }
}

/// Runs `server` in a service group from the moment it accepts connections until `during`
/// returns (or throws), then shuts it down gracefully.
func serving(_ server: ControlServer, claim: ControlSocketClaim, during: () async throws -> Void) async throws {
    let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
    let group = ServiceGroup(services: [server.service(claim: claim) { readyContinuation.yield() }], gracefulShutdownSignals: [], logger: Logger(label: "test"))
    let task = Task { try await group.run() }
    var iterator = ready.makeAsyncIterator()
    await iterator.next()
    do {
        try await during()
    } catch {
        await group.triggerGracefulShutdown()
        try? await task.value
        throw error
    }
    await group.triggerGracefulShutdown()
    try await task.value
}

@Suite(.serialized, .timeLimit(.minutes(5))) struct ControlServerTests {
    @Test func servesJSONAndSetsSocketMode() async throws {
        try await withControlServer { path, _ in
            let reply = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/status")
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "application/json")
            let status = try JSONDecoder().decode(StatusView.self, from: reply.body)
            #expect(status.version == "test")
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
        }
    }

    @Test func routesBodiesToTheBackend() async throws {
        try await withControlServer { path, backend in
            let created = try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/sessions", body: #"{"typeId":"common","lang":"en"}"#)
            #expect(created.status == 201)
            let emptyBody = try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/sessions")
            #expect(emptyBody.status == 201)
            let answered = try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/answers", body: #"{"values":["Kim"]}"#)
            #expect(answered.status == 200)
            #expect(await backend.answers == [AnswerRequest(session: nil, values: ["Kim"], skip: false)])
            let session = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/sessions/s1")
            #expect(try JSONDecoder().decode(SessionView.self, from: session.body).id == "s1")
            let named = try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/answers", body: #"{"values":["Kim"],"question":"name","position":1}"#)
            #expect(named.status == 200)
            #expect(await backend.answers.last == AnswerRequest(session: nil, values: ["Kim"], skip: false, question: "name", position: 1))
            // The backend's actor ran on the connection's event loop, not on the task pool; a
            // listing that grows with the queue is made on the pool.
            #expect(await backend.answeredOnLoop == [true, true])
            let dead = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/dead")
            #expect(dead.status == 200)
            #expect(await backend.deadLettersOnLoop == [false])
        }
    }

    /// An error about a session's progress carries the session beside the error, and the client
    /// reads it.
    @Test func aQuestionChangedReplyCarriesTheSession() async throws {
        try await withControlServer { path, _ in
            let reply = try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/answers", body: #"{"values":["Kim"],"question":"old","position":1}"#)
            #expect(reply.status == 409)
            let error = try JSONDecoder().decode(ErrorReply.self, from: reply.body)
            #expect(error.error.code == "question_changed")
            #expect(error.session == FakeBackend.session)
            #expect(reply.bodyText.hasPrefix(#"{"error":{"code":"question_changed","#) && reply.bodyText.contains(#","session":{"#))
            do throws(ControlClientError) {
                _ = try await ControlClient(socketPath: path).answer(AnswerRequest(values: ["Kim"], question: "old"))
                Issue.record("the client took a 409 for an answer")
            } catch {
                #expect(error.code == "question_changed")
                #expect(error.session == FakeBackend.session)
            }
            // Other errors carry no session, as before.
            let other = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/sessions/zz")
            #expect(!other.bodyText.contains("session\":{"))
            #expect(try JSONDecoder().decode(ErrorReply.self, from: other.body).session == nil)
        }
    }

    @Test func requeueTakesAnOptionalKeyChoice() async throws {
        try await withControlServer { path, backend in
            for body in [nil, #"{"key": "keep"}"#, #"{"key": "new"}"#, "{}"] {
                let reply = try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/dead/7/requeue", body: body)
                #expect(reply.status == 200, "\(reply.bodyText)")
            }
            #expect(await backend.requeues.map(\.request.key) == [nil, .keep, .new, nil])
            #expect(await backend.requeues.map(\.id) == ["7", "7", "7", "7"])
            let reply = try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/dead/7/requeue")
            let view = try JSONDecoder().decode(DeadLetterView.self, from: reply.body)
            #expect(view.outcome == "rejected" && view.previousIdempotencyKey == "k1" && view.idempotencyKey == "k2")
        }
    }

    @Test(arguments: [
        ("POST", "/v1/answers", #"{"values": "Kim"}"#, 400, "body_invalid", "the JSON body is not valid: values: expected a list"),
        ("POST", "/v1/answers", "{not json", 400, "body_invalid", "the JSON body is not valid: not valid JSON"),
        ("POST", "/v1/answers", nil, 400, "body_missing", "this endpoint needs a JSON body"),
        ("GET", "/v1/nothing", nil, 404, "no_such_endpoint", "GET /v1/nothing is not an endpoint of the control API"),
        ("GET", "/v1/sessions/zz", nil, 404, "no_such_session", "no session zz"),
        ("POST", "/v1/sessions", #"{"typeId":"missing"}"#, 503, "definition_unavailable", "no questionnaire for stage missing"),
        ("POST", "/v1/dead/x/requeue", nil, 404, "no_such_dead_letter", "no dead letter x"),
        ("POST", "/v1/dead//requeue", nil, 404, "no_such_dead_letter", "no dead letter with an empty id"),
        ("POST", "/v1/dead/7/requeue", #"{"key": "fresh"}"#, 400, "body_invalid", "the JSON body is not valid: key"),
    ] as [(String, String, String?, Int, String, String)])
    func errorsAreJSONNamingTheProblem(method: String, target: String, body: String?, status: Int, code: String, message: String) async throws {
        try await withControlServer { path, _ in
            let reply = try await UnixHTTP.request(socket: path, method: method, target: target, body: body)
            #expect(reply.status == status)
            let error = try JSONDecoder().decode(ErrorReply.self, from: reply.body)
            #expect(error.error.code == code)
            #expect(error.error.message.hasPrefix(message), "\(error.error.message)")
        }
    }

    @Test func oversizedAndGarbageRequestsGetErrorsAndTheServerKeepsServing() async throws {
        try await withControlServer(maxRequestBytes: 2048) { path, _ in
            let big = #"{"values":[""# + String(repeating: "x", count: 10_000) + #""]}"#
            let tooLarge = try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/answers", body: big)
            #expect(tooLarge.status == 413)
            #expect(try JSONDecoder().decode(ErrorReply.self, from: tooLarge.body).error.code == "body_too_large")

            let garbage = try await UnixHTTP.exchange(socket: path, send: Data("\u{0}\u{1}GARBAGE \r\n\r\n\u{ff}\u{fe}".utf8), deadline: 5)
            let text = String(decoding: garbage, as: UTF8.self)
            #expect(text.isEmpty || text.hasPrefix("HTTP/1.1 4"), "\(text)")
            var random = SystemRandomNumberGenerator()
            for _ in 0..<20 {
                let bytes = Data((0..<Int.random(in: 1...512, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
                _ = try? await UnixHTTP.exchange(socket: path, send: bytes, deadline: 2)
            }
            let after = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/status")
            #expect(after.status == 200)
        }
    }

    @Test func aLiveDaemonIsRefusedAndAStaleSocketReplaced() async throws {
        try await withControlServer { path, _ in
            let second = ControlServer(socketPath: path, socketGroup: nil, maxRequestBytes: 4096, backend: FakeBackend(), eventLoopGroup: controlTestLoop, logger: Logger(label: "t"))
            #expect(throws: ControlError.self) { _ = try second.prepareSocketPath() }
            do throws(ControlError) {
                _ = try second.prepareSocketPath()
            } catch {
                #expect(error.code == "already_running")
                #expect(error.message.contains("another surveyd is already serving \(path)"))
            }
        }
        // A socket file with nobody listening is stale and replaced.
        let dir = try TemporaryDirectory(prefix: "st")
        defer { dir.remove() }
        let path = dir.appending("d.sock").path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8))
        }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        close(fd)
        #expect(FileManager.default.fileExists(atPath: path))
        let server = ControlServer(socketPath: path, socketGroup: nil, maxRequestBytes: 4096, backend: FakeBackend(), eventLoopGroup: controlTestLoop, logger: Logger(label: "t"))
        _ = try server.prepareSocketPath()
        #expect(!FileManager.default.fileExists(atPath: path))
        // A path that is not a socket is never removed.
        try Data("keep".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ControlError.self) { _ = try server.prepareSocketPath() }
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func aConnectionsPeerVerdictIsKeptUntilItCloses() async throws {
        let verdicts = PeerVerdicts()
        let reads = Mutex(0)
        let peer = PeerCredentials(pid: 42, uid: 1001, gid: 1001)
        func read(_: any Channel) async throws -> PeerCredentials {
            reads.withLock { $0 += 1 }
            return peer
        }
        let first = EmbeddedChannel()
        let second = EmbeddedChannel()
        for _ in 0 ..< 3 {
            #expect(try await verdicts.verdict(for: first, read: read) { $0.uid == 1001 }.allowed)
        }
        for _ in 0 ..< 2 {
            #expect(try await !verdicts.verdict(for: second, read: read) { _ in false }.allowed)
        }
        #expect(reads.withLock { $0 } == 2)
        #expect(verdicts.count == 2)
        try await first.close()
        first.embeddedEventLoop.run()
        #expect(verdicts.count == 1)
        _ = try second.finish()
        second.embeddedEventLoop.run()
        #expect(verdicts.count == 0)
        // A closed channel's verdict is not kept.
        #expect(try await verdicts.verdict(for: first, read: read) { _ in true }.allowed)
        first.embeddedEventLoop.run()
        #expect(verdicts.count == 0)
        // A connection that closes while its credentials are read leaves no verdict behind.
        let third = EmbeddedChannel()
        let verdict = try await verdicts.verdict(for: third, read: { channel in
            try await channel.close()
            return peer
        }) { _ in true }
        #expect(verdict.allowed)
        third.embeddedEventLoop.run()
        #expect(verdicts.count == 0)
    }

    /// The answer reply and the session views are written by hand (`JSONOutput`): they must be
    /// the bytes `ControlServer.encoder` gives.
    @Test func repliesAreTheEncodersBytes() throws {
        let odd = "a/b \"q\" \\ \n\t\u{1} 한글 😀"
        let question = QuestionView(name: "like", text: odd, type: "radio", required: false, accepts: ["1) yes", odd], options: [
            OptionView(position: 1, value: "yes", label: odd, isDefault: true),
            OptionView(position: 2, value: "no/maybe", label: "No", isDefault: false),
        ])
        let full = SessionView(id: "s1", stage: "common", lang: "ko", state: "closed", outcome: "queued", current: 5, total: 5, question: question, completedStages: ["common", odd], followUp: "1", lastActivity: "2026-01-01T00:00:00Z")
        let bare = SessionView(id: "s2", stage: odd, lang: "en", state: "asking", outcome: nil, current: 1, total: 0, question: nil, completedStages: [], followUp: nil, lastActivity: "")
        let plainQuestion = QuestionView(name: "n", text: "", type: "text", required: true, accepts: [], options: [])
        var views = [full, bare, SessionView(id: "s3", stage: "1", lang: "en", state: "asking", outcome: nil, current: 2, total: 3, question: plainQuestion, completedStages: [], followUp: nil, lastActivity: "x")]
        // Every question of the common stage as a session shows it.
        let common = try Questionnaire.decode(response: try Fixtures.data("questions/common.en.json"), stage: "common")
        var session = Session(id: UUID(), stage: "common", language: "en", definitionHash: "h", questionnaire: common, startedAt: Date(timeIntervalSince1970: 1_800_000_000.25))
        for words in [["Kim"], ["kim@example.com"], ["kim@example.com"], ["30"], ["3"]] {
            views.append(session.view())
            guard case .accepted(let events) = session.answer(words, at: Date()) else { Issue.record("\(words) refused"); return }
            for event in events { try session.apply(event) }
        }
        views.append(session.view())
        for view in views {
            for reply in [AnswerReply(accepted: true, message: nil, session: view), AnswerReply(accepted: false, message: odd, session: view), AnswerReply(accepted: true, message: nil, repeated: true, session: view)] {
                var out = JSONOutput(escapesSlashes: false)
                reply.write(to: &out)
                #expect(String(decoding: out.bytes, as: UTF8.self) == String(decoding: try ControlServer.encoder.encode(reply), as: UTF8.self))
            }
        }
    }

    @Test func timestampsAreFoundationsISO8601() {
        var dates = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 951_782_400), Date(timeIntervalSince1970: 1_800_000_000.999),
            Date(timeIntervalSince1970: 4_102_444_799.5), Date(timeIntervalSince1970: -0.5), Date(timeIntervalSince1970: -300_000_000.25),
            Date(timeIntervalSinceReferenceDate: 1.0.nextDown), Date(timeIntervalSinceReferenceDate: 785_000_000.0.nextDown),
            Date(timeIntervalSince1970: -12_000_000_000),  // 1589
            Date(timeIntervalSince1970: -13_000_000_000),  // 1558: Foundation's Julian calendar
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0 ..< 500 { dates.append(Date(timeIntervalSince1970: Double.random(in: 0 ..< 4_102_444_800, using: &generator))) }
        for date in dates {
            #expect(date.iso8601Seconds == date.formatted(.iso8601), "\(date.timeIntervalSince1970)")
        }
    }

    /// `AnswerRequest(simpleJSON:)` reads the common bodies and leaves the rest to
    /// `JSONDecoder`: what it reads must be what the decoder reads.
    @Test func simpleAnswerBodiesAreReadAsTheDecoderReadsThem() throws {
        let read: [String] = [
            #"{"session":"abc","skip":false,"values":["Kim Minsu"]}"#,
            #"{"values":["a","b","c"]}"#,
            #" { "values" : [ ] , "skip" : true , "session" : null } "#,
            "{}",
            "{\n\t\"values\":[\"한글 😀\", \"a/b\"]\r\n}",
            #"{"skip":true}"#,
            #"{"session":""}"#,
            #"{"session":"abc","values":["Kim"],"question":"name","position":1}"#,
            #"{"question":"like","position":123456789,"values":["5"]}"#,
            #" { "position" : 0 , "question" : null } "#,
            #"{"position":null,"question":"","skip":true}"#,
            #"{"position":7}"#,
        ]
        for body in read {
            let simple = try #require(AnswerRequest(simpleJSON: Array(body.utf8)), "\(body)")
            #expect(simple == (try JSONDecoder().decode(AnswerRequest.self, from: Data(body.utf8))), "\(body)")
        }
        // ByteBuffer views, as the server has them, take the same path.
        #expect(AnswerRequest(simpleJSON: ByteBuffer(string: read[0]).readableBytesView) != nil)
        let texts: [String] = [
            #"{"values":["a\"b"]}"#, #"{"values":["\u0041"]}"#, #"{"values":[1]}"#, #"{"values":null}"#,
            #"{"skip":null}"#, #"{"skip":1}"#, #"{"session":5}"#, #"{"values":["a"],"values":["b"]}"#,
            #"{"other":1}"#, #"{"values":["a"]} x"#, #"{"values":["a"],}"#, #"{"values":["a",]}"#, #"{"values":["a"]"#,
            #"[]"#, #""#, #"{"values":["a"] "skip":true}"#, #"{"skip":tru}"#, #"{"skip":truex}"#, #"{values:[]}"#,
            "\u{FEFF}{}", #"{"session":null,"session":"x"}"#, "{\u{0B}}", "{\u{0C}}", "{\u{A0}}",
            #"{"position":-1}"#, #"{"position":1.0}"#, #"{"position":1e2}"#, #"{"position":1E2}"#, #"{"position":01}"#, #"{"position":00}"#,
            #"{"position":1234567890}"#, #"{"position":99999999999999999999}"#, #"{"position":"1"}"#, #"{"position":}"#, #"{"position":+1}"#,
            #"{"position":1,"position":2}"#, #"{"question":1}"#, #"{"question":"a\"b"}"#, #"{"question":["a"]}"#, #"{"question":"a","question":"a"}"#,
        ]
        /// A body whose one value holds `bytes` that are not a plain string's.
        func value(_ bytes: [UInt8]) -> [UInt8] {
            Array(#"{"values":[""#.utf8) + bytes + Array(#""]}"#.utf8)
        }
        let invalidStrings: [[UInt8]] = [
            value([0xED, 0xA0, 0x80]),  // an encoded surrogate
            value([0xC0, 0xAF]),  // an overlong "/"
            value([0xED, 0x95]),  // "한" cut before the quote
            value([0xFF, 0xFE]),  // not UTF-8
            value([0x01]),  // a raw control character
        ]
        let leftToTheDecoder = texts.map { Array($0.utf8) } + invalidStrings
        for body in leftToTheDecoder {
            #expect(AnswerRequest(simpleJSON: body) == nil, "\(String(decoding: body, as: UTF8.self))")
        }
        // Cut and altered forms of read bodies: whatever the simple reader accepts, the decoder
        // reads the same way.
        var checked = 0
        for base in [Array(read[2].utf8), Array(read[7].utf8), Array(read[9].utf8)] {
            for cut in 0 ... base.count {
                for replacement in [nil, UInt8(ascii: "\""), UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "x"), UInt8(ascii: " "),
                                    UInt8(ascii: "0"), UInt8(ascii: "7"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "e")] as [UInt8?] {
                    var body = Array(base[..<cut])
                    if let replacement { body.append(replacement) }
                    body += base[min(cut + 1, base.count)...]
                    guard let simple = AnswerRequest(simpleJSON: body) else { continue }
                    checked += 1
                    #expect(simple == (try? JSONDecoder().decode(AnswerRequest.self, from: Data(body))), "\(String(decoding: body, as: UTF8.self))")
                }
            }
        }
        #expect(checked > 30)
    }

    @Test func supplementaryGroupsAreReadFromProcStatus() {
        #expect(PeerCredentials.groups(fromStatus: "Name:\tcurl\nUid:\t65534\t65534\t65534\t65534\nGroups:\t1 27 \nNSpid:\t9\n") == [1, 27])
        #expect(PeerCredentials.groups(fromStatus: "Groups:\t\n").isEmpty)
        #expect(PeerCredentials.groups(fromStatus: "Groups:\t4\n") == [4])
    }

    @Test func peerPolicy() {
        let policy = PeerPolicy(ownerUID: 1000, groupID: nil)
        #expect(policy.allows(PeerCredentials(pid: 1, uid: 1000, gid: 1000), groups: []))
        #expect(policy.allows(PeerCredentials(pid: 1, uid: 0, gid: 0), groups: []))
        #expect(!policy.allows(PeerCredentials(pid: 1, uid: 1001, gid: 50), groups: [50]))
        let grouped = PeerPolicy(ownerUID: 1000, groupID: 50)
        #expect(grouped.allows(PeerCredentials(pid: 1, uid: 1001, gid: 50), groups: []))
        #expect(grouped.allows(PeerCredentials(pid: 1, uid: 1001, gid: 7), groups: [3, 50]))
        #expect(!grouped.allows(PeerCredentials(pid: 1, uid: 1001, gid: 7), groups: [3]))
    }

    @Test(.enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")))
    func anotherUserGets403() async throws {
        try await withControlServer { path, _ in
            // Open the socket file itself so that the kernel lets the other user connect: the daemon's own check must refuse it.
            chmod(path, 0o666)
            let result = try await runProcess(
                URL(fileURLWithPath: "/usr/bin/setpriv"),
                // Two requests on one connection: both refused.
                ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/curl", "-s", "--unix-socket", path, "-w", "\n%{http_code}%{num_connects}", "http://surveyd/v1/status", "http://surveyd/v1/sessions"],
                deadline: .seconds(20)
            )
            #expect(result.stdout.contains("\n4031"), "\(result.stdout) \(result.stderr)")
            #expect(result.stdout.hasSuffix("\n4030"), "the second request reuses the connection: \(result.stdout) \(result.stderr)")
            #expect(result.stdout.components(separatedBy: #""code":"forbidden""#).count == 3)
        }
    }

    @Test(.enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")))
    func aSocketGroupGetsMode0660AndOnlyItsMembersAreServed() async throws {
        let entry = try #require(getgrnam("daemon"), "Debian has a daemon group")
        let gid = entry.pointee.gr_gid
        try await withControlServer(socketGroup: ("daemon", gid)) { path, _ in
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o660)
            #expect(info.st_gid == gid)
            // The socket's directory must let others reach the socket file.
            chmod((path as NSString).deletingLastPathComponent, 0o755)
            func curl(_ groups: [String]) async throws -> ProcessResult {
                try await runProcess(
                    URL(fileURLWithPath: "/usr/bin/setpriv"),
                    ["--reuid=65534", "--regid=65534"] + groups + ["/usr/bin/curl", "-s", "--unix-socket", path, "-w", "\n%{http_code}", "http://surveyd/v1/status"],
                    deadline: .seconds(20))
            }
            let member = try await curl(["--groups=\(gid)"])
            #expect(member.stdout.hasSuffix("\n200"), "a member of the socket group: \(member.stdout) \(member.stderr)")
            let stranger = try await curl(["--clear-groups"])
            #expect(stranger.stdout.hasSuffix("\n000"), "not in the group: the kernel refuses the connection (\(stranger.stdout))")
        }
    }
}

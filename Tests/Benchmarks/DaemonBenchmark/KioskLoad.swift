#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The respondents of the kiosk benchmark: one keep-alive HTTP/1.1 connection per respondent,
/// driven from a channel handler on the load generator's event loop as ``AnswerLoad`` is. A
/// respondent is a browser without scripts: it keeps a cookie per session, posts form bodies and
/// follows each 303 with a GET, reading the hidden fields of the page it got.
///
/// As on the control socket, sessions are started first, untimed (``start``): for each one the
/// welcome screen without a cookie (`GET /?lang=en`, which hands out a new one), `POST /start` and
/// the first question (`GET /question`). Then ``answer`` answers the first four questions of the
/// `common` stage of each started session in turn, as ``AnswerLoad``'s clients answer them: each
/// answer a `POST /answer` and the redirected `GET /question`, with the cookie of its session.
/// Last, untimed, ``reset`` abandons them (`POST /reset`, as the idle countdown does), so that
/// their browsers hold no session when the next round's browsers come. A page that is not the one
/// the walk expects (a rejected answer, an error) stops the run.
enum KioskLoad {
    /// What one respondent did while answering.
    struct Result: Sendable {
        var answered = 0
        /// HTTP requests sent (each POST and each GET).
        var requests = 0
        /// Time of each answer's page: its POST and the redirected GET, in nanoseconds.
        var latencies: [UInt64] = []
    }

    /// A started session as its browser knows it: the cookie and what the page it shows carries.
    struct Session: Sendable {
        var cookie: String
        var csrf: String
        var question: String
        var position: String
    }

    /// The answers, in the order the `common` stage asks them.
    static let steps: [(question: String, value: String)] = [
        ("name", "Kim Minsu"), ("email", "kim@example.com"), ("emailConfirm", "kim@example.com"), ("age", "30"),
    ]

    /// Starts `sessions` sessions, each in a browser of its own, over one connection.
    static func start(host: String, port: Int, sessions: Int, group: any EventLoopGroup) async throws -> [Session] {
        try await drive(host: host, port: port, group: group) { done in Driver(host: host, work: .start(count: sessions), done: done) }.sessions
    }

    /// Answers the four questions of each of `sessions` over one connection.
    /// - Returns: what was done, and the sessions as their pages are now.
    static func answer(host: String, port: Int, sessions: [Session], group: any EventLoopGroup) async throws -> (Result, [Session]) {
        let outcome = try await drive(host: host, port: port, group: group) { done in Driver(host: host, work: .answer(sessions), done: done) }
        return (outcome.result, outcome.sessions)
    }

    /// Abandons each of `sessions` from its page (`POST /reset`).
    static func reset(host: String, port: Int, sessions: [Session], group: any EventLoopGroup) async throws {
        _ = try await drive(host: host, port: port, group: group) { done in Driver(host: host, work: .reset(sessions), done: done) }
    }

    private static func drive(host: String, port: Int, group: any EventLoopGroup, driver: @escaping @Sendable (EventLoopPromise<Driver.Outcome>) -> Driver) async throws -> Driver.Outcome {
        let done = group.next().makePromise(of: Driver.Outcome.self)
        let connecting = ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(driver(done))
                }
            }
            .connect(host: host, port: port)
        connecting.cascadeFailure(to: done)
        let channel = try await connecting.get()
        defer { channel.close(promise: nil) }
        return try await done.futureResult.get()
    }

    final class Driver: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart

        enum Work {
            case start(count: Int)
            case answer([Session])
            case reset([Session])
        }

        struct Outcome: Sendable {
            /// The sessions started, or answered as their pages are now.
            var sessions: [Session] = []
            var result = Result()
        }

        /// What the response being read answers.
        enum Step {
            case welcome, start, started, answer(Int), answered(Int), reset
        }

        let host: String
        let work: Work
        let done: EventLoopPromise<Outcome>
        var step = Step.welcome
        /// The session being started or answered.
        var session = Session(cookie: "", csrf: "", question: "", position: "")
        var index = 0
        var status: HTTPResponseStatus = .ok
        var location: String?
        var reply = ByteBuffer()
        var sentAt: UInt64 = 0
        var outcome = Outcome()
        var finished = false

        init(host: String, work: Work, done: EventLoopPromise<Outcome>) {
            self.host = host
            self.work = work
            self.done = done
            switch work {
            case .start(let count): outcome.sessions.reserveCapacity(count)
            case .answer(let sessions): outcome.result.latencies.reserveCapacity(sessions.count * KioskLoad.steps.count)
            case .reset: break
            }
        }

        var count: Int {
            switch work {
            case .start(let count): count
            case .answer(let sessions), .reset(let sessions): sessions.count
            }
        }

        func channelActive(context: ChannelHandlerContext) {
            next(context: context)
        }

        /// The first request for the next session, or the end.
        func next(context: ChannelHandlerContext) {
            guard index < count else { return finish(.success(outcome)) }
            switch work {
            case .start:
                session = Session(cookie: "", csrf: "", question: "", position: "")
                step = .welcome
                get("/?lang=en", context: context)
            case .answer(let sessions):
                session = sessions[index]
                answer(0, context: context)
            case .reset(let sessions):
                session = sessions[index]
                step = .reset
                post("/reset", "csrf=\(session.csrf)", context: context)
            }
        }

        func finish(_ result: Swift.Result<Outcome, any Error>) {
            guard !finished else { return }
            finished = true
            done.completeWith(result)
        }

        func fail(_ what: String, context: ChannelHandlerContext) {
            let page = String(buffer: reply).prefix(400)
            finish(.failure(BenchmarkLoadFailure(description: "respondent at \(step), session \(index + 1) of \(count): \(what) (got \(status.code), Location \(location ?? "none")): \(page)")))
            context.close(promise: nil)
        }

        func get(_ path: String, context: ChannelHandlerContext) {
            send(.GET, path, body: nil, context: context)
        }

        func post(_ path: String, _ body: String, context: ChannelHandlerContext) {
            send(.POST, path, body: ByteBuffer(string: body), context: context)
        }

        func send(_ method: HTTPMethod, _ path: String, body: ByteBuffer?, context: ChannelHandlerContext) {
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: host)
            if !session.cookie.isEmpty { headers.add(name: "Cookie", value: session.cookie) }
            if let body {
                headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                headers.add(name: "Content-Length", value: String(body.readableBytes))
            }
            outcome.result.requests += 1
            context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers))), promise: nil)
            if let body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                status = head.status
                location = head.headers.first(name: "Location")
                if let set = head.headers.first(name: "Set-Cookie"), let pair = set.split(separator: ";").first {
                    session.cookie = String(pair)
                }
                reply.clear()
            case .body(var part):
                reply.writeBuffer(&part)
            case .end:
                advance(context: context)
            }
        }

        /// Posts the answer to step `k` of the session's walk.
        func answer(_ k: Int, context: ChannelHandlerContext) {
            let (expected, value) = KioskLoad.steps[k]
            guard session.question == expected, session.position == String(k + 1) else {
                return fail("expected question \(expected) at \(k + 1), the page asks \(session.question) at \(session.position)", context: context)
            }
            step = .answer(k)
            sentAt = DispatchTime.now().uptimeNanoseconds
            post("/answer", "csrf=\(session.csrf)&question=\(session.question)&position=\(session.position)&value=\(Self.encode(value))", context: context)
        }

        /// The next request of the walk, after the response to the current one.
        func advance(context: ChannelHandlerContext) {
            switch step {
            case .welcome:
                guard status == .ok, !session.cookie.isEmpty, let token = Self.hidden("csrf", form: "start-form", in: reply) else { return fail("no welcome screen with a new cookie", context: context) }
                step = .start
                post("/start", "csrf=\(token)&lang=en", context: context)
            case .start, .answer:
                guard status == .seeOther, let location else { return fail("no redirect", context: context) }
                if case .answer(let k) = step { step = .answered(k) } else { step = .started }
                get(location, context: context)
            case .started, .answered:
                guard status == .ok, let token = Self.hidden("csrf", form: "answer-form", in: reply),
                      let name = Self.hidden("question", form: "answer-form", in: reply),
                      let shown = Self.hidden("position", form: "answer-form", in: reply)
                else { return fail("no question page", context: context) }
                session.csrf = token
                session.question = name
                session.position = shown
                guard case .answered(let k) = step else {
                    outcome.sessions.append(session)
                    index += 1
                    return next(context: context)
                }
                outcome.result.latencies.append(DispatchTime.now().uptimeNanoseconds - sentAt)
                outcome.result.answered += 1
                if k + 1 < KioskLoad.steps.count { return answer(k + 1, context: context) }
                outcome.sessions.append(session)
                index += 1
                next(context: context)
            case .reset:
                guard status == .seeOther, location == "/" else { return fail("reset did not go to the welcome screen", context: context) }
                index += 1
                next(context: context)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            finish(.failure(error))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(.failure(BenchmarkLoadFailure(description: "the server closed the connection after \(index) of \(count) sessions")))
        }

        /// The value of `<input type="hidden" name="NAME" value="…">` inside the form with id `form`
        /// (searched with `memchr` and `memcmp`: the generic search cost the load generator more CPU per page
        /// than the control socket's whole reply).
        static func hidden(_ name: String, form: String, in buffer: ByteBuffer) -> String? {
            buffer.withUnsafeReadableBytes { page -> String? in
                guard let base = page.baseAddress else { return nil }
                func find(_ needle: String, from offset: Int) -> Int? {
                    var needle = needle
                    return needle.withUTF8 { bytes -> Int? in
                        guard let first = bytes.first, let needleBase = bytes.baseAddress else { return nil }
                        var at = offset
                        while page.count - at >= bytes.count, let hit = memchr(base + at, Int32(first), page.count - at - bytes.count + 1) {
                            at = base.distance(to: UnsafeRawPointer(hit))
                            if memcmp(base + at, needleBase, bytes.count) == 0 { return at + bytes.count }
                            at += 1
                        }
                        return nil
                    }
                }
                guard let formStart = find("id=\"\(form)\"", from: 0),
                      let valueStart = find("name=\"\(name)\" value=\"", from: formStart)
                else { return nil }
                guard let end = page[valueStart...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                return String(decoding: UnsafeRawBufferPointer(rebasing: page[valueStart..<end]), as: UTF8.self)
            }
        }

        /// Form encoding of the few characters the answers hold.
        static func encode(_ value: String) -> String {
            value.replacingOccurrences(of: "@", with: "%40").replacingOccurrences(of: " ", with: "+")
        }
    }
}

struct BenchmarkLoadFailure: Error, CustomStringConvertible {
    var description: String
}

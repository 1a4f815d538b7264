#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The respondents of the kiosk benchmark: one keep-alive HTTP/1.1 connection per respondent,
/// driven from a channel handler on the load generator's event loop as ``AnswerLoad`` is. A
/// respondent is a browser without scripts: it keeps its cookie, posts form bodies and follows
/// each 303 with a GET, reading the hidden fields of the page it got.
///
/// Its walk, `sessions` times: the welcome screen (`GET /?lang=en`), `POST /start`, then the first
/// four questions of the `common` stage answered as ``AnswerLoad``'s clients answer them
/// (`POST /answer`, then `GET /question`), then `POST /reset` (the session is abandoned, as the
/// idle countdown does, so no stage is submitted) and the welcome screen again. A page that is
/// not the one the walk expects (a rejected answer, an error) stops the run.
enum KioskLoad {
    /// What one respondent did.
    struct Result: Sendable {
        var answered = 0
        /// HTTP requests sent (each POST and each GET).
        var requests = 0
        /// Time of each answer's page: its POST and the redirected GET, in nanoseconds.
        var latencies: [UInt64] = []
    }

    /// The answers, in the order the `common` stage asks them.
    static let steps: [(question: String, value: String)] = [
        ("name", "Kim Minsu"), ("email", "kim@example.com"), ("emailConfirm", "kim@example.com"), ("age", "30"),
    ]

    static func run(host: String, port: Int, sessions: Int, group: any EventLoopGroup) async throws -> Result {
        let done = group.next().makePromise(of: Result.self)
        let connecting = ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(Driver(host: host, sessions: sessions, done: done))
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

        /// What the response being read answers.
        enum Step {
            case welcome, start, started, answer(Int), answered(Int), reset
        }

        let host: String
        let sessions: Int
        let done: EventLoopPromise<Result>
        var step = Step.welcome
        var cookie: String?
        var csrf = ""
        var question = ""
        var position = ""
        var walked = 0
        var status: HTTPResponseStatus = .ok
        var location: String?
        var reply = ByteBuffer()
        var sentAt: UInt64 = 0
        var result = Result()
        var finished = false

        init(host: String, sessions: Int, done: EventLoopPromise<Result>) {
            self.host = host
            self.sessions = sessions
            self.done = done
            result.latencies.reserveCapacity(sessions * KioskLoad.steps.count)
        }

        func channelActive(context: ChannelHandlerContext) {
            if sessions == 0 { finish(.success(result)) } else { get("/?lang=en", context: context) }
        }

        func finish(_ outcome: Swift.Result<Result, any Error>) {
            guard !finished else { return }
            finished = true
            done.completeWith(outcome)
        }

        func fail(_ what: String, context: ChannelHandlerContext) {
            let page = String(buffer: reply).prefix(400)
            finish(.failure(BenchmarkLoadFailure(description: "respondent at \(step), session \(walked + 1) of \(sessions): \(what) (got \(status.code), Location \(location ?? "none")): \(page)")))
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
            if let cookie { headers.add(name: "Cookie", value: cookie) }
            if let body {
                headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                headers.add(name: "Content-Length", value: String(body.readableBytes))
            }
            result.requests += 1
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
                    cookie = String(pair)
                }
                reply.clear()
            case .body(var part):
                reply.writeBuffer(&part)
            case .end:
                advance(context: context)
            }
        }

        /// The next request of the walk, after the response to the current one.
        func advance(context: ChannelHandlerContext) {
            switch step {
            case .welcome:
                guard status == .ok, let token = Self.hidden("csrf", form: "start-form", in: reply) else { return fail("no welcome screen", context: context) }
                if walked == sessions { return finish(.success(result)) }
                csrf = token
                step = .start
                post("/start", "csrf=\(csrf)&lang=en", context: context)
            case .start, .answer:
                guard status == .seeOther, let location else { return fail("no redirect", context: context) }
                if case .answer(let k) = step { step = .answered(k) } else { step = .started }
                get(location, context: context)
            case .started, .answered:
                var next = 0
                if case .answered(let k) = step {
                    result.latencies.append(DispatchTime.now().uptimeNanoseconds - sentAt)
                    result.answered += 1
                    next = k + 1
                }
                guard status == .ok, let token = Self.hidden("csrf", form: "answer-form", in: reply),
                      let name = Self.hidden("question", form: "answer-form", in: reply),
                      let shown = Self.hidden("position", form: "answer-form", in: reply)
                else { return fail("no question page", context: context) }
                csrf = token
                question = name
                position = shown
                guard next < KioskLoad.steps.count else {
                    step = .reset
                    return post("/reset", "csrf=\(csrf)", context: context)
                }
                let (expected, value) = KioskLoad.steps[next]
                guard question == expected, position == String(next + 1) else {
                    return fail("expected question \(expected) at \(next + 1), the page asks \(question) at \(position)", context: context)
                }
                step = .answer(next)
                sentAt = DispatchTime.now().uptimeNanoseconds
                post("/answer", "csrf=\(csrf)&question=\(question)&position=\(position)&value=\(Self.encode(value))", context: context)
            case .reset:
                guard status == .seeOther, location == "/" else { return fail("reset did not go to the welcome screen", context: context) }
                walked += 1
                step = .welcome
                get("/", context: context)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            finish(.failure(error))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(.failure(BenchmarkLoadFailure(description: "the server closed the connection after \(walked) of \(sessions) sessions")))
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

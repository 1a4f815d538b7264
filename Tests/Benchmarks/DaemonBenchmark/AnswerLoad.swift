import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The load generator of the answers benchmark: one keep-alive HTTP/1.1 connection per client
/// to the control socket, each sending its answers one after another from a channel handler on
/// its event loop. It spends far less CPU per request than a general HTTP client (no connection
/// pool, no task hops, request bodies built before the clock starts), so that more of the
/// machine's two cores is left to the daemon being measured.
enum AnswerLoad {
    /// What one connection did.
    struct Result: Sendable {
        var answered = 0
        /// Round trip of each answer, in nanoseconds.
        var latencies: [UInt64] = []
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends every body in `bodies` as `POST /v1/answers` on a new connection to `socket`, each
    /// after the previous reply; a reply that is not `200` with `"accepted":true` fails the run.
    static func run(socket: String, bodies: [ByteBuffer], group: any EventLoopGroup) async throws -> Result {
        let done = group.next().makePromise(of: Result.self)
        let connecting = ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(Driver(bodies: bodies, done: done))
                }
            }
            .connect(unixDomainSocketPath: socket)
        connecting.cascadeFailure(to: done)
        let channel = try await connecting.get()
        defer { channel.close(promise: nil) }
        return try await done.futureResult.get()
    }

    /// The body of one answer request, as `ControlClient` would send it.
    static func body(session: String, values: [String]) -> ByteBuffer {
        let quoted = values.map { "\"\($0)\"" }.joined(separator: ",")
        return ByteBuffer(string: #"{"session":"\#(session)","skip":false,"values":[\#(quoted)]}"#)
    }

    final class Driver: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart

        let bodies: [ByteBuffer]
        let done: EventLoopPromise<Result>
        var next = 0
        var status: HTTPResponseStatus = .ok
        var reply = ByteBuffer()
        var sentAt: UInt64 = 0
        var result = Result()
        var finished = false
        static let accepted = Array(#""accepted":true"#.utf8)

        init(bodies: [ByteBuffer], done: EventLoopPromise<Result>) {
            self.bodies = bodies
            self.done = done
            result.latencies.reserveCapacity(bodies.count)
        }

        func channelActive(context: ChannelHandlerContext) {
            if bodies.isEmpty { finish(.success(result)) } else { send(context: context) }
        }

        func finish(_ outcome: Swift.Result<Result, any Error>) {
            guard !finished else { return }
            finished = true
            done.completeWith(outcome)
        }

        func send(context: ChannelHandlerContext) {
            let body = bodies[next]
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: "localhost")
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            sentAt = DispatchTime.now().uptimeNanoseconds
            context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .POST, uri: "/v1/answers", headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                status = head.status
                reply.clear()
            case .body(var part):
                reply.writeBuffer(&part)
            case .end:
                let ok = status == .ok && reply.readableBytesView.firstRange(of: Self.accepted) != nil
                guard ok else {
                    finish(.failure(Failure(description: "answer \(next) got \(status.code): \(String(buffer: reply))")))
                    context.close(promise: nil)
                    return
                }
                result.latencies.append(DispatchTime.now().uptimeNanoseconds - sentAt)
                result.answered += 1
                next += 1
                if next == bodies.count { finish(.success(result)) } else { send(context: context) }
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            finish(.failure(error))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish(.failure(Failure(description: "the daemon closed the connection after \(next) of \(bodies.count) answers")))
        }
    }
}

import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The control server's listening socket and accept loop, a `Service` of the daemon.
///
/// The daemon binds the socket itself (``ControlSocketClaim/bind()``), or takes the one systemd
/// passed (socket activation), and hands the bound
/// descriptor to NIO, rather than letting the HTTP server bind the path: a server that binds a
/// path removes whatever socket file is there when it binds and again when it closes, which
/// would remove another daemon's socket. Here the file is removed at shutdown only while it is
/// still the one bound. Each connection is Hummingbird's HTTP/1.1 channel with this daemon's
/// time limits (``ControlChildChannel``); requests go to the router's responder.
struct ControlListener<Responder: HTTPResponder>: Service where Responder.Context == ControlRequestContext {
    let claim: ControlSocketClaim
    /// The socket's group (mode 0660), or nil (mode 0600).
    let socketGroup: UInt32?
    let responder: Responder
    let limits: ControlConnectionLimits
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger
    let onReady: @Sendable () async -> Void

    /// The listen backlog: connections the kernel queues before the daemon accepts them.
    static var backlog: Int32 { 256 }

    func run() async throws {
        let logger = logger
        let connections = ControlConnections(limit: limits.maxConnections, logger: logger)
        let childChannel = ControlChildChannel(responder: Self.respond(with: responder, logger: logger), limits: limits, connections: connections)
        defer { claim.removeSocketFile() }
        let socket = try claim.listeningSocket()
        // A socket systemd passed has the mode, owner and group its .socket unit gives it.
        if !claim.isInherited {
            do {
                try ControlSocket.setMode(path: claim.path, group: socketGroup)
            } catch {
                logger.error("cannot set the control socket's mode", metadata: ["path": "\(claim.path)", "error": "\(error)"])
            }
        }
        let server: NIOAsyncChannel<ControlChildChannel.Value, Never>
        do {
            server = try await ServerBootstrap(group: eventLoopGroup)
                .serverChannelOption(ChannelOptions.backlog, value: Self.backlog)
                .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
                .bind(socket) { channel in childChannel.setup(channel: channel, logger: logger) }
        } catch {
            throw ControlError(status: 500, code: "socket_listen", "cannot listen on the control socket \(claim.path): \(error)")
        }
        await withGracefulShutdownHandler {
            await onReady()
            await withDiscardingTaskGroup { group in
                do {
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            let executor = EventLoopTaskExecutor(connection.channel.eventLoop)
                            group.addTask(executorPreference: executor) { await childChannel.handle(value: connection, logger: logger) }
                        }
                    }
                } catch {
                    logger.error("the control socket stopped accepting connections", metadata: ["error": "\(error)"])
                }
            }
        } onGracefulShutdown: {
            // Stop accepting; connections between requests close, requests in progress finish.
            server.channel.close(promise: nil)
            connections.quiesceAll()
        }
    }

    /// What Hummingbird's `Application` does with each request: the router's response, with
    /// the server's name, written to the connection. Every error already became a JSON reply
    /// (``ControlErrorMiddleware`` makes it a ``ControlError``, which the router writes); an HTTP
    /// parse error is thrown on, so that the connection replies 400 and closes.
    static func respond(with responder: Responder, logger: Logger) -> HTTPChannelHandler.Responder {
        { request, writer, channel in
            let context = ControlRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                logger.error("control request failed", metadata: ["error": "\(error)"])
                response = Response(status: .internalServerError)
            }
            response.headers[.server] = "surveyd"
            try await writer.write(response: response.head, body: response.body)
        }
    }
}

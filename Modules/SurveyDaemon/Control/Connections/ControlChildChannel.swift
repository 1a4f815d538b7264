import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The control server's connections: Hummingbird's HTTP/1.1 channel with a
/// ``ControlConnection`` watching each one's deadlines, registered with ``ControlConnections``.
struct ControlChildChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let responder: HTTPChannelHandler.Responder
    let limits: ControlConnectionLimits
    let connections: ControlConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connection = ControlConnection(limits: limits, registration: connections.opened(channel))
        let requestWatcher = NIOLoopBound(ControlConnection.RequestWatcher(connection), eventLoop: channel.eventLoop)
        do {
            try channel.pipeline.syncOperations.addHandler(ControlConnection.ByteWatcher(connection), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        // Hummingbird's own idle timeout is left off: the connection's state machine keeps both
        // the read and the idle clock (see ``ControlConnection/StateMachine``).
        let http1 = HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [requestWatcher.value]))
        return http1.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await HTTP1Channel(responder: responder).handle(value: value, logger: logger)
    }
}

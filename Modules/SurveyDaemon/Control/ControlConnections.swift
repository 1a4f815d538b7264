import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// The open control connections, so that a graceful shutdown can ask each one to close.
final class ControlConnections: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var open: [UInt64: any Channel] = [:]
        /// Shutting down: new connections are closed at once.
        var quiescing = false
    }

    private let state = Mutex(State())

    /// The connections open now.
    var count: Int { state.withLock { $0.open.count } }

    /// Registers a new connection (closing it, once it is set up, when shutting down).
    func opened(_ channel: any Channel) {
        let (id, refused) = state.withLock { state -> (UInt64, Bool) in
            let id = state.nextID
            state.nextID += 1
            guard !state.quiescing else { return (id, true) }
            state.open[id] = channel
            return (id, false)
        }
        channel.closeFuture.whenComplete { _ in self.closed(id) }
        if refused {
            // Not registered with its event loop yet: closed once it is.
            channel.eventLoop.execute { channel.close(promise: nil) }
        }
    }

    /// At shutdown: every open connection is asked to close once its request in progress, if
    /// any, is answered (Hummingbird's connection handler does that on `ChannelShouldQuiesceEvent`),
    /// and later ones are closed at once.
    func quiesceAll() {
        let channels = state.withLock { state in
            state.quiescing = true
            return Array(state.open.values)
        }
        for channel in channels {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
    }

    private func closed(_ id: UInt64) {
        _ = state.withLock { $0.open.removeValue(forKey: id) }
    }
}

/// The control server's connections: Hummingbird's HTTP/1.1 channel, registered with
/// ``ControlConnections``.
struct ControlChildChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let responder: HTTPChannelHandler.Responder
    let connections: ControlConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        connections.opened(channel)
        return HTTP1Channel(responder: responder).setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await HTTP1Channel(responder: responder).handle(value: value, logger: logger)
    }
}

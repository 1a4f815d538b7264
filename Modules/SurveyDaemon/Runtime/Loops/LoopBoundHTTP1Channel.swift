import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 connection whose handling task prefers the connection's own event
/// loop (``EventLoopTaskExecutor``): a request is read, answered and written on the connection's
/// thread, unless an actor it calls is busy on another one.
struct LoopBoundHTTP1Channel: ServerChildChannel {
    let inner: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        inner.setup(channel: channel, logger: logger)
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await inner.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 whose requests are handled on their connection's event loop.
    static func loopBoundHTTP1() -> HTTPServerBuilder {
        .init { responder in LoopBoundHTTP1Channel(inner: HTTP1Channel(responder: responder)) }
    }
}

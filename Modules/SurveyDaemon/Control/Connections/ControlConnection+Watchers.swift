import HummingbirdCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

extension ControlConnection {
    /// First in the pipeline: sees the bytes of every read.
    final class ByteWatcher: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        let connection: ControlConnection

        init(_ connection: ControlConnection) { self.connection = connection }

        func handlerAdded(context: ChannelHandlerContext) { connection.attach(byteContext: context) }
        func handlerRemoved(context: ChannelHandlerContext) { connection.detach() }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            connection.bytesArrived(unwrapInboundIn(data).readableBytes)
            context.fireChannelRead(data)
        }

        func channelInactive(context: ChannelHandlerContext) {
            connection.detach()
            context.fireChannelInactive()
        }
    }

    /// After the HTTP decoder: sees request heads and ends, parse errors and response ends.
    final class RequestWatcher: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = RequestPart
        typealias InboundOut = RequestPart
        typealias OutboundIn = ResponsePart
        typealias OutboundOut = ResponsePart
        let connection: ControlConnection

        init(_ connection: ControlConnection) { self.connection = connection }

        func handlerAdded(context: ChannelHandlerContext) { connection.attach(requestContext: context) }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            connection.requestPartRead(unwrapInboundIn(data))
            context.fireChannelRead(data)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            if error is HTTPParserError { connection.parseErrorCaught() }
            context.fireErrorCaught(error)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            guard case .end = unwrapOutboundIn(data), connection.responseEnded() else {
                context.write(data, promise: promise)
                return
            }
            // After a parse error nothing more can be read: close once the reply is out.
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.cascade(to: promise)
            context.writeAndFlush(data, promise: written)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}

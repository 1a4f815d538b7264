import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// The time limits of a control connection, and the cap on their number.
public struct ControlConnectionLimits: Sendable, Hashable {
    /// How long a request's head may take from its first byte (from the connection's start for
    /// its first request), and its body from the end of its head.
    public var readTimeout: Duration
    /// How long a connection may stay open with no request after its last response.
    public var idleTimeout: Duration
    /// The most control connections open at once; beyond it, the oldest without a request in
    /// progress is closed.
    public var maxConnections: Int

    public init(readTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60), maxConnections: Int = 256) {
        self.readTimeout = readTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }
}

/// A request's head or body did not arrive within the read timeout. The request body's reader
/// gets it, so that the route replies `408 request_timeout`.
struct ControlReadTimeout: Error, CustomStringConvertible {
    var timeout: Duration
    var description: String { "the request was not received within \(timeout)" }
}

/// The read deadlines of one control connection, on its event loop.
///
/// Two handlers feed it: ``ByteWatcher``, first in the pipeline, sees every read (the first byte
/// of a request starts its head's deadline); ``RequestWatcher``, after the HTTP decoder, sees
/// request heads and ends, parse errors, and response ends. Its one timer is set for:
///
/// - a request being read (head or body): its start plus the read timeout;
/// - a request read whole whose response is not written yet: nothing (the daemon owes the reply);
/// - nothing to read or write: the last response plus the idle timeout.
///
/// When it fires: a head that was started gets `408 request_timeout` and the connection is
/// closed; a body being read makes the body's reader fail (the route replies 408), and the
/// connection is closed one read timeout later if it is still open; an idle connection, or one
/// that never sent a byte, is closed. After an HTTP parse error the connection is closed as soon
/// as the reply to it is written.
final class ControlConnection {
    typealias RequestPart = HTTPConnectionStateHandler.InboundIn
    typealias ResponsePart = HTTPConnectionStateHandler.OutboundIn

    private enum Reading {
        /// Between requests, since the end of the last response.
        case nothing(since: NIODeadline)
        /// A request's head, since its first byte (or the connection's start).
        case head(since: NIODeadline, sawBytes: Bool)
        /// A request's body, since its head.
        case body(since: NIODeadline)
    }

    let limits: ControlConnectionLimits
    let registration: ControlConnections.Registration
    private var reading: Reading
    /// Request heads read, request ends read, response ends written.
    private var heads = 0
    private var ends = 0
    private var responses = 0
    private var parseFailed = false
    /// The deadline passed while a body was read: the connection is closed at the next one.
    private var timedOut = false
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    private var byteContext: ChannelHandlerContext?
    private var requestContext: ChannelHandlerContext?

    init(limits: ControlConnectionLimits, registration: ControlConnections.Registration) {
        self.limits = limits
        self.registration = registration
        reading = .head(since: .now(), sawBytes: false)
    }

    private var readTimeout: TimeAmount { TimeAmount(limits.readTimeout) }
    private var idleTimeout: TimeAmount { TimeAmount(limits.idleTimeout) }

    /// A request was read whole and its response is not written yet.
    private var owesResponse: Bool { ends > responses }

    private var deadline: NIODeadline? {
        if timedOut { return nil }
        if owesResponse { return nil }
        switch reading {
        case .nothing(let since): return since + idleTimeout
        case .head(let since, _), .body(let since): return since + readTimeout
        }
    }

    // MARK: Events

    func bytesArrived(_ count: Int) {
        guard count > 0 else { return }
        switch reading {
        case .nothing: reading = .head(since: .now(), sawBytes: true)
        case .head(let since, false): reading = .head(since: since, sawBytes: true)
        case .head, .body: return
        }
        updateTimer()
    }

    func requestPartRead(_ part: RequestPart) {
        switch part {
        case .head:
            heads += 1
            reading = .body(since: .now())
        case .body:
            return
        case .end:
            ends += 1
            reading = .nothing(since: .now())
            if owesResponse { registration.setBusy(true) }
        }
        updateTimer()
    }

    func parseErrorCaught() { parseFailed = true }

    /// A response's end is being written: returns whether to close once it is.
    func responseEnded() -> Bool {
        responses += 1
        if !owesResponse {
            registration.setBusy(false)
            if case .nothing = reading { reading = .nothing(since: .now()) }
        }
        updateTimer()
        return parseFailed
    }

    func attach(byteContext context: ChannelHandlerContext) {
        byteContext = context
        updateTimer()
    }

    func attach(requestContext context: ChannelHandlerContext) { requestContext = context }

    func detach() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        byteContext = nil
        requestContext = nil
    }

    // MARK: Timer

    /// Schedules the timer for the current deadline, unless one set for an earlier time is pending
    /// (it checks again when it fires).
    private func updateTimer(hardClose: NIODeadline? = nil) {
        guard let context = byteContext else { return }
        guard let deadline = hardClose ?? deadline else { return }
        if let timerDeadline, timerDeadline <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in
            self?.timerFired()
        }
    }

    private func timerFired() {
        timer = nil
        timerDeadline = nil
        guard let context = byteContext else { return }
        if timedOut {
            context.close(promise: nil)
            return
        }
        guard let deadline else { return }
        guard NIODeadline.now() >= deadline else {
            updateTimer()
            return
        }
        switch reading {
        case .nothing, .head(_, sawBytes: false):
            context.close(promise: nil)
        case .head(_, sawBytes: true):
            if parseFailed {
                context.close(promise: nil)
            } else {
                replyRequestTimeoutAndClose()
            }
        case .body:
            guard heads > responses, let requestContext else {
                // Replied already; what is left of the body will not arrive in time.
                context.close(promise: nil)
                return
            }
            timedOut = true
            requestContext.fireErrorCaught(ControlReadTimeout(timeout: limits.readTimeout))
            updateTimer(hardClose: .now() + readTimeout)
        }
    }

    /// `408 request_timeout` for a head that did not arrive whole, then the close.
    private func replyRequestTimeoutAndClose() {
        guard let requestContext, let byteContext else { return }
        let error = ControlError(status: 408, code: "request_timeout", "the request's head was not received within \(limits.readTimeout); send the whole request at once")
        let response = error.response
        var head = HTTPResponse(status: response.status, headerFields: response.headers)
        head.headerFields[.connection] = "close"
        let body = error.body
        head.headerFields[.contentLength] = String(body.readableBytes)
        requestContext.write(NIOAny(ResponsePart.head(head)), promise: nil)
        requestContext.write(NIOAny(ResponsePart.body(body)), promise: nil)
        let written = requestContext.eventLoop.makePromise(of: Void.self)
        requestContext.writeAndFlush(NIOAny(ResponsePart.end(nil)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in byteContext.close(promise: nil) }
    }
}

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

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

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
/// request heads and ends, parse errors, and response ends. ``StateMachine`` decides; this class
/// keeps the one timer and does what it says: a head that was started gets `408 request_timeout`
/// and the connection is closed; a body being read makes the body's reader fail (the route
/// replies 408 and the connection is closed once that is written, or one idle timeout later if
/// the route has not replied by then); an
/// idle connection, or one that never sent a byte, is closed. After an HTTP parse error the
/// connection is closed as soon as the reply to it is written.
final class ControlConnection {
    typealias RequestPart = HTTPConnectionStateHandler.InboundIn
    typealias ResponsePart = HTTPConnectionStateHandler.OutboundIn

    let limits: ControlConnectionLimits
    let registration: ControlConnections.Registration
    private var machine: StateMachine
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    private var byteContext: ChannelHandlerContext?
    private var requestContext: ChannelHandlerContext?

    init(limits: ControlConnectionLimits, registration: ControlConnections.Registration) {
        self.limits = limits
        self.registration = registration
        machine = StateMachine(limits: limits, now: .now())
    }

    // MARK: Events

    func bytesArrived(_ count: Int) {
        machine.bytesArrived(count, now: .now())
        updateTimer()
    }

    func requestPartRead(_ part: RequestPart) {
        let kind: StateMachine.RequestPart
        switch part {
        case .head: kind = .head
        case .body: kind = .body
        case .end: kind = .end
        }
        if machine.requestPartRead(kind, now: .now()) { registration.setBusy(true) }
        updateTimer()
    }

    func parseErrorCaught() { machine.parseErrorCaught() }

    /// A response's end is being written: returns whether to close once it is.
    func responseEnded() -> Bool {
        let action = machine.responseEnded(now: .now())
        if action.nowIdle { registration.setBusy(false) }
        updateTimer()
        return action.closeWhenWritten
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

    /// Schedules the timer for the machine's deadline, unless one set for an earlier time is
    /// pending (it checks again when it fires).
    private func updateTimer() {
        guard let context = byteContext, let deadline = machine.deadline else { return }
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
        switch machine.timerFired(now: .now(), canFailBody: requestContext != nil) {
        case .nothing:
            return
        case .wait:
            updateTimer()
        case .close:
            context.close(promise: nil)
        case .replyRequestTimeoutAndClose:
            replyRequestTimeoutAndClose()
        case .failBody:
            requestContext?.fireErrorCaught(ControlReadTimeout(timeout: limits.readTimeout))
            updateTimer()
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

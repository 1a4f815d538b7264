import NIOCore

extension ControlConnection {
    /// The read and idle deadlines of one connection, without a channel: each event updates the
    /// state and says what to do; ``ControlConnection`` does it on the event loop.
    ///
    /// ``deadline`` is when the connection's one timer is due:
    ///
    /// - a request being read (head or body): its start plus the read timeout;
    /// - a request read whole whose response is not written yet: none (the daemon owes the reply);
    /// - nothing to read or write: the last response plus the idle timeout;
    /// - after a body's reader was failed: the route's reply to it closes the connection once it is
    ///   written; if none is written within the idle timeout, the connection is closed then.
    ///
    /// Hummingbird's idle timeout (and NIO's `IdleStateHandler` under it) counts from the last
    /// HTTP part or write, so it would cut a head whose first bytes came late in an idle period
    /// without its 408, and hold a connection that sends nothing for the idle time rather than
    /// the read timeout: this machine keeps both clocks.
    struct StateMachine {
        enum Reading: Equatable {
            /// Between requests, since the end of the last response.
            case nothing(since: NIODeadline)
            /// A request's head, since its first byte (or the connection's start).
            case head(since: NIODeadline, sawBytes: Bool)
            /// A request's body, since its head.
            case body(since: NIODeadline)
        }

        /// The parts of a request the HTTP decoder reads.
        enum RequestPart: Equatable { case head, body, end }

        /// What to do when a response's end is written.
        struct ResponseEnd: Equatable {
            /// No request is in progress any more: the connection may be closed at the cap.
            var nowIdle: Bool
            /// After a parse error nothing more can be read: close once the reply is written.
            var closeWhenWritten: Bool
        }

        /// What to do when the timer fires.
        enum Timeout: Equatable {
            /// Nothing is due: no timer.
            case nothing
            /// The deadline moved later: set the timer for ``StateMachine/deadline``.
            case wait
            /// Close the connection.
            case close
            /// Reply `408 request_timeout` to the head that did not arrive whole, then close.
            case replyRequestTimeoutAndClose
            /// Fail the body's reader (its route replies 408); the timer is set for the close.
            case failBody
        }

        let readTimeout: TimeAmount
        let idleTimeout: TimeAmount
        private(set) var reading: Reading
        /// Request heads read, request ends read, response ends written.
        private var heads = 0
        private var ends = 0
        private var responses = 0
        private var parseFailed = false
        /// The body's reader was failed: the reply the route makes of it ends the connection.
        private var bodyFailed = false
        /// Set when the deadline passed while a body was read: the connection closes then.
        private var closeAt: NIODeadline?

        init(limits: ControlConnectionLimits, now: NIODeadline) {
            readTimeout = TimeAmount(limits.readTimeout)
            idleTimeout = TimeAmount(limits.idleTimeout)
            reading = .head(since: now, sawBytes: false)
        }

        /// A request was read whole and its response is not written yet.
        var owesResponse: Bool { ends > responses }

        /// When the timer is due, or nil when no timer is needed.
        var deadline: NIODeadline? {
            if let closeAt { return closeAt }
            if owesResponse { return nil }
            switch reading {
            case .nothing(let since): return since + idleTimeout
            case .head(let since, _), .body(let since): return since + readTimeout
            }
        }

        /// Bytes were read: the first byte of a request starts its head's deadline.
        mutating func bytesArrived(_ count: Int, now: NIODeadline) {
            guard count > 0 else { return }
            switch reading {
            case .nothing: reading = .head(since: now, sawBytes: true)
            case .head(let since, false): reading = .head(since: since, sawBytes: true)
            case .head, .body: return
            }
        }

        /// The decoder read a request part: returns true when a request was read whole and
        /// awaits its response (the connection has a request in progress).
        mutating func requestPartRead(_ part: RequestPart, now: NIODeadline) -> Bool {
            switch part {
            case .head:
                heads += 1
                reading = .body(since: now)
                return false
            case .body:
                return false
            case .end:
                ends += 1
                reading = .nothing(since: now)
                return owesResponse
            }
        }

        mutating func parseErrorCaught() { parseFailed = true }

        /// A response's end is being written.
        mutating func responseEnded(now: NIODeadline) -> ResponseEnd {
            responses += 1
            let idle = !owesResponse
            if idle, case .nothing = reading { reading = .nothing(since: now) }
            return ResponseEnd(nowIdle: idle, closeWhenWritten: parseFailed || bodyFailed)
        }

        /// The timer fired. `canFailBody` says whether the body's reader can be reached.
        mutating func timerFired(now: NIODeadline, canFailBody: Bool = true) -> Timeout {
            if let closeAt { return now >= closeAt ? .close : .wait }
            guard let deadline else { return .nothing }
            guard now >= deadline else { return .wait }
            switch reading {
            case .nothing, .head(_, sawBytes: false):
                return .close
            case .head(_, sawBytes: true):
                return parseFailed ? .close : .replyRequestTimeoutAndClose
            case .body:
                // Replied already: what is left of the body will not arrive in time.
                guard heads > responses, canFailBody else { return .close }
                bodyFailed = true
                closeAt = now + idleTimeout
                return .failBody
            }
        }
    }
}

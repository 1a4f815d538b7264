import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// The open control connections, held to ``ControlConnectionLimits/maxConnections``: their
/// channels, and a ``ControlConnectionCap`` that decides which to close.
final class ControlConnections: Sendable {
    let limit: Int
    let logger: Logger

    private struct State {
        var cap: ControlConnectionCap
        var channels: [UInt64: any Channel] = [:]
    }

    private let state: Mutex<State>

    init(limit: Int, logger: Logger) {
        self.limit = limit
        self.logger = logger
        state = Mutex(State(cap: ControlConnectionCap(limit: limit)))
    }

    /// A connection's entry, for its ``ControlConnection`` to say whether it has a request in progress.
    struct Registration: Sendable {
        let connections: ControlConnections
        let id: UInt64

        func setBusy(_ busy: Bool) { connections.setBusy(id, busy) }
    }

    /// The connections open now.
    var count: Int { state.withLock { $0.cap.count } }

    /// Registers a new connection, closing the oldest idle one when that exceeds the limit (the
    /// new one itself, once it is set up, when every other has a request in progress).
    func opened(_ channel: any Channel) -> Registration {
        let (opened, victim) = state.withLock { state -> (ControlConnectionCap.Opened, (any Channel)?) in
            let opened = state.cap.opened(now: .now)
            switch opened.verdict {
            case .keep:
                state.channels[opened.id] = channel
                return (opened, nil)
            case .closeNew:
                return (opened, nil)
            case .close(let victim):
                state.channels[opened.id] = channel
                return (opened, state.channels.removeValue(forKey: victim))
            }
        }
        if let report = opened.report {
            logger.notice("control connections at their limit: the oldest without a request in progress are closed", metadata: ["limit": "\(limit)", "closed": "\(report)"])
        }
        let id = opened.id
        channel.closeFuture.whenComplete { _ in self.closed(id) }
        if opened.verdict == .closeNew {
            // Not registered with its event loop yet: closed once it is.
            channel.eventLoop.execute { channel.close(promise: nil) }
        }
        victim?.close(promise: nil)
        return Registration(connections: self, id: id)
    }

    /// At shutdown: every open connection is asked to close once its request in progress, if
    /// any, is answered (Hummingbird's connection handler does that on `ChannelShouldQuiesceEvent`),
    /// and later ones are closed at once.
    func quiesceAll() {
        let channels = state.withLock { state in state.cap.quiesce().compactMap { state.channels[$0] } }
        for channel in channels {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
    }

    private func setBusy(_ id: UInt64, _ busy: Bool) {
        state.withLock { $0.cap.setBusy(id, busy) }
    }

    private func closed(_ id: UInt64) {
        state.withLock { state in
            state.cap.closed(id)
            state.channels.removeValue(forKey: id)
        }
    }
}

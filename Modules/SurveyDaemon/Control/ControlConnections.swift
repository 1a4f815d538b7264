import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// The open control connections, held to ``ControlConnectionLimits/maxConnections``.
///
/// At the cap, a new connection makes the oldest connection without a request in progress close
/// (one that sent nothing yet, a partial head or body, or is idle between requests), or the new
/// one itself when every other has a request in progress. Refusing new connections instead would
/// let a few hundred connections that never finish a request lock every client out; this way a
/// normal request, which is read whole as soon as it arrives, is served, while the connections
/// that are closed were never going to be. A request in progress is never cut: the daemon
/// finishes what it was asked.
final class ControlConnections: Sendable {
    let limit: Int
    let logger: Logger

    private struct Entry {
        var channel: any Channel
        var busy: Bool
    }

    private struct State {
        var nextID: UInt64 = 0
        /// By id: ids grow with each connection, so the smallest is the oldest.
        var open: [UInt64: Entry] = [:]
        var closedAtLimit = 0
        var lastReport: ContinuousClock.Instant?
        /// Shutting down: new connections are closed at once.
        var quiescing = false
    }

    private let state = Mutex(State())

    init(limit: Int, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    /// A connection's entry, for its ``ControlConnection`` to say whether it has a request in progress.
    struct Registration: Sendable {
        let connections: ControlConnections
        let id: UInt64

        func setBusy(_ busy: Bool) { connections.setBusy(id, busy) }
    }

    /// The connections open now.
    var count: Int { state.withLock { $0.open.count } }

    /// Registers a new connection, closing the oldest idle one when that exceeds the limit (the
    /// new one itself, once it is set up, when every other has a request in progress).
    func opened(_ channel: any Channel) -> Registration {
        let (id, victim, report) = state.withLock { state -> (UInt64, (any Channel)?, Int?) in
            let id = state.nextID
            state.nextID += 1
            guard !state.quiescing else { return (id, channel, nil) }
            state.open[id] = Entry(channel: channel, busy: false)
            guard state.open.count > limit else { return (id, nil, nil) }
            var oldest: UInt64?
            for (key, entry) in state.open where !entry.busy && key < (oldest ?? .max) {
                oldest = key
            }
            // Every other connection has a request in progress: the new one is the one not served.
            let victimID = oldest ?? id
            let victim = state.open.removeValue(forKey: victimID)?.channel
            state.closedAtLimit += 1
            let now = ContinuousClock.now
            guard state.lastReport.map({ now - $0 >= .seconds(60) }) ?? true else { return (id, victim, nil) }
            state.lastReport = now
            defer { state.closedAtLimit = 0 }
            return (id, victim, state.closedAtLimit)
        }
        if let report {
            logger.notice("control connections at their limit: the oldest without a request in progress are closed", metadata: ["limit": "\(limit)", "closed": "\(report)"])
        }
        channel.closeFuture.whenComplete { _ in self.closed(id) }
        if let victim {
            if victim === channel {
                // Not registered with its event loop yet: closed once it is.
                channel.eventLoop.execute { channel.close(promise: nil) }
            } else {
                victim.close(promise: nil)
            }
        }
        return Registration(connections: self, id: id)
    }

    /// At shutdown: every open connection is asked to close once its request in progress, if
    /// any, is answered (Hummingbird's connection handler does that on `ChannelShouldQuiesceEvent`),
    /// and later ones are closed at once.
    func quiesceAll() {
        let channels = state.withLock { state in
            state.quiescing = true
            return state.open.values.map(\.channel)
        }
        for channel in channels {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
    }

    private func setBusy(_ id: UInt64, _ busy: Bool) {
        state.withLock { $0.open[id]?.busy = busy }
    }

    private func closed(_ id: UInt64) {
        _ = state.withLock { $0.open.removeValue(forKey: id) }
    }
}

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
        // Hummingbird's own idle timeout is left off: the connection's watchers keep the time.
        let http1 = HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [requestWatcher.value]))
        return http1.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await HTTP1Channel(responder: responder).handle(value: value, logger: logger)
    }
}

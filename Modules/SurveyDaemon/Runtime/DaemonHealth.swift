public import ControlAPI
import ServiceLifecycle
import Synchronization

/// Where the daemon is in its life, for `GET /v1/health`: starting (the control socket does not
/// listen yet), serving, or stopping (a graceful shutdown began). With the journals' state it
/// decides readiness.
public final class DaemonHealth: Sendable {
    public enum Phase: Sendable, Hashable {
        case starting, serving, stopping
    }

    private let phaseValue = Mutex(Phase.starting)

    public init() {}

    public var phase: Phase { phaseValue.withLock { $0 } }

    /// The control socket accepts connections.
    public func serving() {
        phaseValue.withLock { if $0 == .starting { $0 = .serving } }
    }

    /// A graceful shutdown began: nothing new should be sent here.
    public func stopping() {
        phaseValue.withLock { $0 = .stopping }
    }

    /// Ready when the control socket listens, the daemon is not stopping and every journal can
    /// write; otherwise each reason, with what to do.
    public func view(journals: [StatusView.Journal]) -> HealthView {
        Self.view(phase: phase, journals: journals)
    }

    static func view(phase: Phase, journals: [StatusView.Journal]) -> HealthView {
        var reasons: [HealthView.Reason] = []
        switch phase {
        case .starting:
            reasons.append(.init(code: HealthView.notListening, message: "the control socket does not accept connections yet; wait for the daemon to finish starting"))
        case .stopping:
            reasons.append(.init(code: HealthView.stopping, message: "the daemon is stopping; start it again (systemctl start surveyd) if that was not meant"))
        case .serving:
            break
        }
        for journal in journals where journal.state != "ok" {
            let cause = [journal.call, journal.cause].compactMap { $0 }.joined(separator: " ")
            reasons.append(.init(
                code: HealthView.journalFailed,
                message: "the \(journal.name) journal cannot write (\(cause.isEmpty ? journal.state : cause)\(journal.since.map { " since \($0)" } ?? "")); answers are refused until it can: free space or fix the disk, the daemon retries by itself"))
        }
        return HealthView(ready: reasons.isEmpty, reasons: reasons)
    }
}

/// Marks the daemon as stopping as soon as a graceful shutdown begins (it is the first service
/// the group shuts down), so that health checks stop sending work here.
struct ShutdownNotice: Service {
    let lifecycle: DaemonHealth
    /// Ended at the same moment, so that the control server, stopping next, has no event stream
    /// left open to wait for.
    var events: DaemonEvents?

    func run() async throws {
        try? await gracefulShutdown()
        lifecycle.stopping()
        events?.finish()
    }
}

#if canImport(Glibc)
import Glibc
#endif
import ControlAPI
import Dispatch
import Foundation
public import Logging
import Synchronization

/// The daemon's version, shown by `surveyd --version` and `surveyctl status`.
public enum SurveyDaemonVersion {
    public static let current = ProductVersion.current
}

/// What `surveyd` runs: the daemon until SIGTERM or SIGINT; a second signal forces the exit.
public enum DaemonMain {
    /// - Parameters:
    ///   - environment: where systemd's variables are read (`$NOTIFY_SOCKET`, `$WATCHDOG_USEC`,
    ///     `$LISTEN_FDS`…).
    ///   - onReady: called once the control socket and the kiosk pages (when configured) listen.
    ///   - reload: resolves the configuration again from the same sources, on SIGHUP; nil leaves
    ///     SIGHUP alone.
    public static func run(
        configuration: DaemonConfiguration, logger: Logger, environment: [String: String] = [:],
        onReady: @escaping @Sendable (DaemonEndpoints) async -> Void = { _ in },
        reload: (@Sendable () async throws(ConfigurationError) -> DaemonConfiguration)? = nil
    ) async throws {
        DaemonLogLevel.shared.level = configuration.logLevel
        if let files = OpenFileLimit.raiseToHardLimit(), files < UInt64(configuration.maxControlConnections) + 64 {
            logger.warning("the open file limit is low for maxControlConnections: connections beyond it are refused", metadata: ["limit": "\(files)", "maxControlConnections": "\(configuration.maxControlConnections)"])
        }
        let inherited: InheritedControlSocket?
        do throws(ControlError) {
            inherited = try SocketActivation.controlSocket(environment: environment)
        } catch {
            throw DaemonStartError(error.message)
        }
        // Read once; not passed on to anything the daemon might start.
        for name in SocketActivation.variables { unsetenv(name) }
        if let inherited, inherited.path != configuration.socketPath {
            logger.notice("serving the control socket systemd passed, not socketPath", metadata: ["socket": "\(inherited.path)", "socketPath": "\(configuration.socketPath)"])
        }
        let daemon = try await Daemon(configuration: configuration, version: SurveyDaemonVersion.current, logger: logger, inheritedSocket: inherited)
        var onReload: (@Sendable () async -> Void)?
        if let reload {
            let reloader = ConfigurationReloader(current: configuration, daemon: daemon, logLevel: .shared, logger: logger, resolve: reload)
            onReload = { await reloader.reload() }
        }
        let escalation = SecondSignal(logger: logger)
        defer { escalation.cancel() }
        let socket = inherited?.path ?? configuration.socketPath
        try await daemon.run(
            systemd: .from(environment: environment, logger: logger),
            onReady: { endpoints in
                var metadata: Logger.Metadata = ["socket": "\(socket)", "state": "\(configuration.stateDirectory)", "server": "\(configuration.serverURL ?? "")", "socketActivation": "\(inherited != nil)"]
                if let url = endpoints.kioskURL { metadata["kiosk"] = "\(url)" }
                logger.info("surveyd ready", metadata: metadata)
                await onReady(endpoints)
            },
            reload: onReload)
    }
}

/// Counts SIGTERM and SIGINT beside the service group's own handling: the first starts the
/// graceful shutdown (the group does that), the second exits at once. Nothing acknowledged is
/// lost by that: every acknowledged answer is already durable.
final class SecondSignal: @unchecked Sendable {
    // Set once in init; DispatchSource's cancel is thread-safe.
    private let sources: [any DispatchSourceSignal]

    init(logger: Logger) {
        let count = Atomic<Int>(0)
        sources = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if count.add(1, ordering: .relaxed).newValue >= 2 {
                    LogLineWriter.standardError.flush(timeout: .milliseconds(500))
                    FileHandle.standardError.write(Data("surveyd: second signal, exiting now\n".utf8))
                    _exit(EXIT_FAILURE)
                }
            }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import ControlAPI
import Dispatch
import Foundation
import Logging
import Synchronization

/// The daemon's version, shown by `surveyd --version` and `surveyctl status`.
public enum SurveyDaemonVersion {
    public static let current = ProductVersion.current
}

/// What `surveyd` runs: the daemon until SIGTERM or SIGINT; a second signal forces the exit.
public enum DaemonMain {
    /// - Parameter onReady: called once the control socket and the kiosk pages (when configured) listen.
    public static func run(configuration: DaemonConfiguration, logger: Logger, onReady: @escaping @Sendable (DaemonEndpoints) async -> Void = { _ in }) async throws {
        if let files = OpenFileLimit.raiseToHardLimit(), files < UInt64(configuration.maxControlConnections) + 64 {
            logger.warning("the open file limit is low for maxControlConnections: connections beyond it are refused", metadata: ["limit": "\(files)", "maxControlConnections": "\(configuration.maxControlConnections)"])
        }
        let daemon = try await Daemon(configuration: configuration, version: SurveyDaemonVersion.current, logger: logger)
        let escalation = SecondSignal(logger: logger)
        defer { escalation.cancel() }
        try await daemon.run { endpoints in
            var metadata: Logger.Metadata = ["socket": "\(configuration.socketPath)", "state": "\(configuration.stateDirectory)", "server": "\(configuration.serverURL ?? "")"]
            if let url = endpoints.kioskURL { metadata["kiosk"] = "\(url)" }
            logger.info("surveyd ready", metadata: metadata)
            await onReady(endpoints)
        }
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

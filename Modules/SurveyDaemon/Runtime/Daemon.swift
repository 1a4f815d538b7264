#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import ControlAPI
import Foundation
import Logging
import Networking
import ServiceLifecycle
import UnixSignals
import Storage

/// A failure to start the daemon, with what to do about it.
public struct DaemonStartError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The whole daemon, assembled from its configuration: the session journal, the submission
/// queue and the definition cache under the state directory; the survey client with its
/// connectivity check; sessions, delivery, housekeeping and the control server as services of one
/// `ServiceGroup`.
public final class Daemon: Sendable {
    public let configuration: DaemonConfiguration
    public let sessions: SessionManager
    public let worker: DeliveryWorker
    public let queue: StoredSubmissionQueue
    public let monitor: ConnectivityMonitor
    public let backend: DaemonBackend
    let sessionJournal: Journal
    let cache: DefinitionCache
    let definitions: ServerDefinitionSource
    let httpClient: HTTPClient
    let control: ControlServer
    /// The control socket's lock, held from before the socket is checked until the daemon stops.
    let socketClaim: ControlSocketClaim
    let logger: Logger

    /// Opens the state and builds every part; nothing runs until ``run(signals:onReady:)``.
    public init(configuration: DaemonConfiguration, version: String, logger: Logger) async throws {
        self.configuration = configuration
        self.logger = logger
        guard let serverURL = configuration.serverURL.flatMap(URL.init(string:)), let probe = TCPConnectProbe(baseURL: serverURL) else {
            throw DaemonStartError("no survey server URL is configured; give --server-url, SURVEYD_SERVER_URL or serverURL in the --config file (or run surveyd --demo)")
        }
        let socketGroup = try Self.group(configuration.socketGroup)
        // Released by its deinit when the start fails below.
        do throws(ControlError) {
            socketClaim = try ControlSocket.prepare(path: configuration.socketPath)
        } catch {
            throw DaemonStartError(error.message)
        }
        let state = configuration.stateDirectory
        try Self.makeDirectory(state)
        var journalOptions = JournalOptions()
        journalOptions.durability = configuration.journalDurability
        do {
            // A compaction writes every kept session as one snapshot record: allow a large one.
            var sessionOptions = journalOptions
            sessionOptions.maxPayloadSize = 256 << 20
            sessionJournal = try Journal(directory: state + "/sessions", options: sessionOptions, logger: logger)
        } catch let error as StorageError where error.code == .locked {
            throw DaemonStartError("the state directory \(state) is in use by another surveyd; stop it first or give another --state-dir")
        }
        var queueOptions = SubmissionQueueOptions()
        queueOptions.journal = journalOptions
        queueOptions.journal.diskCap = configuration.queueDiskCapBytes
        let submissionQueue: SubmissionQueue
        do {
            submissionQueue = try SubmissionQueue(directory: state + "/queue", options: queueOptions, logger: logger)
        } catch {
            sessionJournal.close()
            throw error
        }
        let cache = try DefinitionCache(directory: state + "/definitions")
        self.cache = cache

        let deviceID: String
        do {
            deviceID = try configuration.deviceID ?? DeviceIdentity.loadOrCreate(in: state)
        } catch let error as StorageError {
            sessionJournal.close()
            submissionQueue.close()
            throw DaemonStartError(error.message)
        }
        monitor = ConnectivityMonitor(probe: probe, reuse: configuration.connectivityCache)
        let clientConfiguration = SurveyClientConfiguration(baseURL: serverURL, userAgent: "surveyd/\(version)", tokenFile: configuration.tokenFile, deviceID: deviceID)
        httpClient = AsyncHTTPClientTransport.makeClient(for: clientConfiguration)
        let client = SurveyClient(
            configuration: clientConfiguration,
            transport: AsyncHTTPClientTransport(client: httpClient), connectivity: monitor, logger: logger)
        let wakeup = DeliveryWakeup()
        let sessionProblems = sessionJournal.recoveryReport.map { "\($0.kind.rawValue) in \(state)/sessions/\($0.segment) at byte \($0.offset); kept at \($0.keptAt)" }
        queue = StoredSubmissionQueue(queue: submissionQueue, wakeup: wakeup, problems: { sessionProblems }, otherJournals: [("sessions", sessionJournal)])
        let definitions = ServerDefinitionSource(client: client, cache: cache, deadline: configuration.definitionFetchDeadline, logger: logger)
        self.definitions = definitions
        let sessions = SessionManager(
            journal: StoredSessionJournal(journal: sessionJournal),
            definitions: definitions,
            queue: queue,
            settings: .init(defaultLanguage: configuration.defaultLanguage.rawValue, idleTimeout: configuration.idleSessionTimeout, deliveryWait: configuration.deliveryWait),
            logger: logger)
        self.sessions = sessions
        let policy = RetryPolicy(base: configuration.backoffBase, cap: configuration.backoffCap)
        worker = DeliveryWorker(
            queue: queue, uploader: ClientUploader(client: client),
            settings: .init(
                maxInFlight: configuration.maxInFlight, backoff: policy.backoff, offlinePause: max(.seconds(30), configuration.probeSchedule.cap),
                ramp: configuration.rampInitialWindow == 0 ? nil : DeliveryRamp.Settings(initialWindow: configuration.rampInitialWindow, maxWindow: configuration.maxInFlight, holdOff: policy)),
            wakeup: wakeup, logger: logger
        ) { key, state in await sessions.deliveryFinished(key: key, state: state) }
        let worker = self.worker
        var backend = DaemonBackend(version: version, startedAt: Date(), sessions: sessions, worker: worker, inspector: queue, connectivity: monitor)
        backend.deviceId = deviceID
        self.backend = backend
        control = ControlServer(socketPath: configuration.socketPath, socketGroup: socketGroup, maxRequestBytes: configuration.maxRequestBytes, limits: configuration.controlLimits, backend: backend, logger: logger)
        do {
            try await sessions.restore()
        } catch {
            // Nothing will run: release the journals' locks and the HTTP client (which must be
            // shut down before it is released).
            await close()
            throw error
        }
    }

    /// Runs every service until a graceful shutdown (one of `signals`, or the group ending), then
    /// closes the journals. `onReady` is called once the control socket accepts connections.
    public func run(signals: [UnixSignal] = [.sigterm, .sigint], onReady: @escaping @Sendable () async -> Void = {}) async throws {
        let server = control
        let housekeeping = Housekeeping(sessions: sessions, queue: queue.queue, cache: cache, interval: min(.seconds(30), max(.seconds(1), configuration.idleSessionTimeout / 4)), logger: logger)
        let watcher = ConnectivityWatcher(monitor: monitor, worker: worker, queue: queue.queue, schedule: configuration.probeSchedule)
        // Services shut down in reverse order: the control server stops accepting first, the
        // questionnaire fetches still in flight are stopped last.
        var groupConfiguration = ServiceGroupConfiguration(
            services: [
                .init(service: DefinitionFetchesService(source: definitions)),
                .init(service: worker),
                .init(service: housekeeping),
                .init(service: watcher),
                .init(service: server.service(claim: socketClaim, onReady: onReady)),
            ],
            gracefulShutdownSignals: signals,
            logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = Duration.seconds(10)
        groupConfiguration.maximumCancellationDuration = Duration.seconds(5)
        let group = ServiceGroup(configuration: groupConfiguration)
        do {
            try await group.run()
        } catch {
            await close()
            throw error
        }
        await close()
    }

    /// Closes the journals (after what was pending is durable) and shuts the HTTP client down
    /// without blocking a thread of the concurrency pool; removes the control socket (when it is
    /// still the one this daemon bound) and releases its lock.
    func close() async {
        socketClaim.release()
        sessionJournal.close()
        queue.queue.close()
        do {
            try await httpClient.shutdown()
        } catch {
            logger.warning("the HTTP client did not shut down cleanly", metadata: ["error": "\(error)"])
        }
        logger.info("surveyd stopped; journals closed")
    }

    /// Creates the state directory (0700, with missing parents; each new directory made durable
    /// by an fsync of its parent) or sets an existing one to 0700.
    static func makeDirectory(_ path: String) throws {
        do {
            try PrivateDirectory.create(path, intermediates: true)
        } catch let error as StorageError {
            throw DaemonStartError("cannot create the state directory \(path): \(error.message); create it or give another --state-dir")
        }
    }

    static func group(_ name: String?) throws -> (name: String, gid: UInt32)? {
        guard let name else { return nil }
        guard let entry = getgrnam(name) else {
            throw DaemonStartError("the socket group \(name) does not exist; create it or fix socketGroup")
        }
        return (name, entry.pointee.gr_gid)
    }
}

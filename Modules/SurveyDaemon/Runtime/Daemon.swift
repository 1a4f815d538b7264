#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import ControlAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Entities
import Kiosk
public import Logging
public import Networking
import NIOPosix
import ServiceLifecycle
public import UnixSignals
import Storage
import Synchronization

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
    /// Takes answers no longer needed off the disk (`Erasure/`).
    public let erasure: AnswerErasure
    let sessionJournal: Journal
    let cache: DefinitionCache
    let definitions: ServerDefinitionSource
    let httpClient: HTTPClient
    let surveyClient: SurveyClient
    let control: ControlServer
    /// The control server's own event loop: one thread serves every control connection (reads,
    /// HTTP parsing, writes), apart from the loops of the survey-server client. Shut down by
    /// ``close()``.
    let controlLoops: MultiThreadedEventLoopGroup
    /// The respondent's pages, when `kioskListen` is set.
    let kiosk: KioskServer?
    /// The control socket's lock, held from before the socket is checked until the daemon stops.
    let socketClaim: ControlSocketClaim
    /// The daemon's phase, for `GET /v1/health`.
    public let lifecycle = DaemonHealth()
    /// The registry `GET /metrics` reads; every part records through its ``MetricsExporter/metrics``.
    public let exporter = MetricsExporter()
    /// The port the metrics listener bound, once it listens.
    let metricsPortValue = Mutex<Int?>(nil)
    /// Notices steps of the wall clock (`Clock/`); its thread runs while the daemon does.
    let wallClockWatcher: WallClockWatcher
    /// The directory watches (inotify threads) the daemon's services started: its stop waits for them.
    let directoryWatches = DirectoryWatches()
    /// Makes housekeeping look at its deadlines again (a reload changed the idle timeout).
    let housekeepingWakeup = DeliveryWakeup()
    /// The monotonic clock every timeout, delay and deadline of the daemon is measured and slept on.
    let clock: any Clock<Duration>
    let logger: Logger
    /// Set by ``close()``; a daemon released without it is a programming error.
    let closed = Atomic<Bool>(false)

    /// The TCP port metrics are served on (`metricsListen`), once it listens.
    public var metricsPort: Int? { metricsPortValue.withLock { $0 } }

    /// Opens the state and builds every part; nothing runs until ``run(signals:systemd:onReady:reload:)``.
    /// - Parameter inheritedSocket: the listening control socket systemd passed (socket
    ///   activation), served instead of binding `socketPath`.
    ///   - clock: the monotonic clock of every timeout, delay and deadline (tests record what is slept on it).
    public init(
        configuration: DaemonConfiguration, version: String, logger: Logger, inheritedSocket: InheritedControlSocket? = nil, clock: any Clock<Duration> = ContinuousClock()
    ) async throws {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        guard let serverURL = configuration.serverURL.flatMap(URL.init(string:)), let probe = TCPConnectProbe(baseURL: serverURL) else {
            throw Self.noServerURL
        }
        let socketGroup = try Self.group(configuration.socketGroup)
        let kioskPlan = try Self.kioskPlan(configuration)
        let staffPin = try Self.staffPin(configuration)
        // Before anything is created or opened: a refused key leaves the state directory as it was.
        let keys = try DaemonEncryption.keys(configuration)
        try DaemonEncryption.check(state: configuration.stateDirectory, keys: keys)
        // Released by its deinit when the start fails below.
        do throws(ControlError) {
            if let inheritedSocket {
                socketClaim = ControlSocketClaim.inherited(inheritedSocket)
            } else {
                socketClaim = try ControlSocket.prepare(path: configuration.socketPath)
            }
        } catch {
            throw DaemonStartError(error.message)
        }
        let state = configuration.stateDirectory
        try Self.makeDirectory(state)
        let metrics = exporter.metrics
        var journalOptions = JournalOptions()
        journalOptions.fileOperations = BlockingCallCheck.fileOperations
        journalOptions.durability = configuration.journalDurability
        journalOptions.encryption = keys
        do {
            // A compaction writes every kept session as one snapshot record: allow a large one.
            var sessionOptions = journalOptions
            sessionOptions.maxPayloadSize = 256 << 20
            sessionOptions.observer = metrics.journal("sessions")
            sessionJournal = try Journal(directory: state + "/sessions", options: sessionOptions, logger: logger)
        } catch let error as StorageError where error.code == .locked {
            throw DaemonStartError("the state directory \(state) is in use by another surveyd; stop it first or give another --state-dir")
        }
        var queueOptions = SubmissionQueueOptions()
        queueOptions.journal = journalOptions
        queueOptions.journal.diskCap = configuration.queueDiskCapBytes
        queueOptions.journal.observer = metrics.journal("queue")
        let submissionQueue: SubmissionQueue
        do {
            submissionQueue = try SubmissionQueue(directory: state + "/queue", options: queueOptions, logger: logger)
        } catch {
            await sessionJournal.close()
            throw error
        }
        // From here on a failed start closes both journals again (their writer threads and locks).
        let cache: DefinitionCache
        let deviceID: String
        do {
            cache = try DefinitionCache(directory: state + "/definitions", operations: BlockingCallCheck.fileOperations)
            do {
                deviceID = try configuration.deviceID ?? DeviceIdentity.loadOrCreate(in: state, operations: BlockingCallCheck.fileOperations)
            } catch let error as StorageError {
                throw DaemonStartError(error.message)
            }
        } catch {
            await sessionJournal.close()
            await submissionQueue.close()
            throw error
        }
        self.cache = cache
        let clientConfiguration = SurveyClientConfiguration(baseURL: serverURL, userAgent: "surveyd/\(version)", tokenFile: configuration.tokenFile, deviceID: deviceID)
        httpClient = AsyncHTTPClientTransport.makeClient(for: clientConfiguration)
        let transport = AsyncHTTPClientTransport(client: httpClient)
        let token = BearerTokenFile(path: configuration.tokenFile)
        let identity = QuestionnaireIdentityCheck(
            transport: transport, configuration: clientConfiguration, token: token, stage: configuration.firstStage, lang: configuration.defaultLanguage.rawValue, logger: logger)
        monitor = ConnectivityMonitor(
            probe: CountingProbe(probe, metrics: metrics), reuse: configuration.connectivityCache, identity: identity, logger: logger,
            onPortal: { [metrics] state in metrics.portalChanged(to: state.rawValue) })
        let client = SurveyClient(configuration: clientConfiguration, transport: transport, connectivity: monitor, token: token, logger: logger)
        surveyClient = client
        let wakeup = DeliveryWakeup()
        let sessionProblems = sessionJournal.recoveryReport.map { "\($0.kind.rawValue) in \(state)/sessions/\($0.segment) at byte \($0.offset); kept at \($0.keptAt)" }
        var queue = StoredSubmissionQueue(queue: submissionQueue, wakeup: wakeup, problems: { sessionProblems }, otherJournals: [("sessions", sessionJournal)])
        queue.metrics = metrics
        self.queue = queue
        let definitions = ServerDefinitionSource(client: client, cache: cache, deadline: configuration.definitionFetchDeadline, logger: logger, metrics: metrics)
        self.definitions = definitions
        let sessions = SessionManager(
            journal: StoredSessionJournal(journal: sessionJournal),
            definitions: definitions,
            queue: queue,
            settings: .init(defaultLanguage: configuration.defaultLanguage.rawValue, idleTimeout: configuration.idleSessionTimeout, deliveryWait: configuration.deliveryWait, firstStage: configuration.firstStage,
                quality: configuration.quality.rules),
            clock: clock, logger: logger, metrics: metrics)
        self.sessions = sessions
        let policy = RetryPolicy(base: configuration.backoffBase, cap: configuration.backoffCap)
        worker = DeliveryWorker(
            queue: queue, uploader: ClientUploader(client: client),
            settings: .init(
                maxInFlight: configuration.maxInFlight, backoff: policy.backoff, offlinePause: max(.seconds(30), configuration.probeSchedule.cap),
                ramp: configuration.rampInitialWindow == 0 ? nil : DeliveryRamp.Settings(
                    initialWindow: configuration.rampInitialWindow, maxWindow: configuration.maxInFlight,
                    maxRetryAfter: configuration.backoffCap,
                    initialRate: Double(configuration.rampInitialRate))),
            wakeup: wakeup, clock: clock, logger: logger, metrics: metrics
        ) { key, state in
            metrics.finished(key: key, state)
            await sessions.deliveryFinished(key: key, state: state)
        }
        let worker = self.worker
        let erasure = AnswerErasure(
            sessions: sessions, queue: queue, journals: [sessionJournal, submissionQueue.journal], delay: configuration.erasureDelay,
            keptSince: Date(), clock: clock, logger: logger)
        self.erasure = erasure
        // A step of the wall clock may make the server's certificate checkable (a clock NTP has
        // just set): the next upload asks again at once. The open sessions' dates are journaled
        // again on the new clock, for their idle timeout after a restart.
        wallClockWatcher = WallClockWatcher(clock: ContinuousClock(), logger: logger, metrics: metrics, onStep: { [monitor = self.monitor, worker, sessions] in
            monitor.clockWasSet()
            worker.wake()
            Task { await sessions.wallClockStepped() }
        })
        var backend = DaemonBackend(version: version, startedAt: Date(), sessions: sessions, worker: worker, inspector: queue, connectivity: monitor, lifecycle: lifecycle, exporter: exporter)
        backend.deviceId = deviceID
        exporter.describe(device: deviceID, version: version, queueDiskCap: configuration.queueDiskCapBytes, erasureDelay: configuration.erasureDelay)
        backend.queueAdministration = queue
        backend.serverURLIsPlainHTTP = serverURL.scheme?.lowercased() == "http"
        if backend.serverURLIsPlainHTTP {
            logger.warning("\(OperatorAdvice.plainHTTP) (doc/security.md)", metadata: ["serverURL": "\(serverURL.absoluteString)"])
        }
        backend.uptime = Timeline(ContinuousClock()).elapsed
        backend.erasure = erasure
        backend.encryption = { [sessionJournal] in DaemonEncryption.view(keys: keys, journals: [sessionJournal, submissionQueue.journal]) }
        if let keys {
            logger.notice("answers are encrypted at rest", metadata: ["key": "\(keys.current.fingerprint)", "oldKeys": "\(keys.old.count)"])
        } else {
            logger.warning("answers are stored in the clear: no encryptionKeyFile and no surveyd-key credential (doc/security.md)")
        }
        let staffDesk = Self.staffDesk(configuration, pin: staffPin, exporter: exporter, logger: logger)
        backend.staffDesk = staffDesk
        self.backend = backend
        kiosk = kioskPlan.map { KioskServer(address: $0.address, settings: $0.settings, brand: KioskBrandStore($0.brand), sessions: sessions, staff: staffDesk, control: backend, logger: logger) }
        let controlLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.controlLoops = controlLoops
        control = ControlServer(
            socketPath: configuration.socketPath, socketGroup: socketGroup, maxRequestBytes: configuration.maxRequestBytes, limits: configuration.controlLimits,
            backend: backend, eventLoopGroup: controlLoops, logger: logger)
        do {
            try await sessions.restore()
            // The replayed records and events are let go: give their heap back to the system.
            Journal.releaseFreedMemory()
        } catch {
            // Nothing will run: release the journals' locks and the HTTP client (which must be
            // shut down before it is released).
            await close()
            throw error
        }
    }

    deinit {
        if !closed.load(ordering: .acquiring) { releasedWithoutClose() }
    }
}

public import ControlAPI
import CoreMetrics
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Networking
import Prometheus
public import Storage
import Synchronization

/// The daemon's metrics in the Prometheus text format (`GET /metrics`).
///
/// Each daemon has a registry of its own, behind a `PrometheusMetricsFactory` that makes the
/// ``DaemonMetrics`` its parts record through; the global `MetricsSystem` is never bootstrapped,
/// so several daemons (tests run them in parallel) never mix their counts. The gauges are set
/// from a ``Snapshot`` taken when a scrape comes, so nothing on the hot path maintains them.
public final class MetricsExporter: Sendable {
    /// What the gauges show, read at scrape time.
    public struct Snapshot: Sendable {
        public var counts: SubmissionQueueCounts?
        public var now: Date
        public var connectivity: ConnectivityStatus.State
        /// Each journal's name, bytes on disk and whether it is failed.
        public var journals: [(name: String, diskBytes: Int, failed: Bool)]
        public var ready: Bool
        /// Whether delivery is paused because the server refused the token.
        public var paused: Bool
        /// The delivery ramp's hold-off after a 429/503, while it lasts.
        public var holdOff: DeliveryWorker.HoldOff?
        /// How long the oldest answer waiting for erasure has waited, on a monotonic clock; nil
        /// when none waits.
        public var erasureLongestWait: Duration?
        /// Whether the journals are encrypted, and the segments left to rewrite; nil: not said.
        public var encryption: EncryptionView?

        public init(counts: SubmissionQueueCounts?, now: Date, connectivity: ConnectivityStatus.State, journals: [(name: String, diskBytes: Int, failed: Bool)], ready: Bool, paused: Bool = false, holdOff: DeliveryWorker.HoldOff? = nil, encryption: EncryptionView? = nil) {
            self.paused = paused
            self.holdOff = holdOff
            self.encryption = encryption
            self.counts = counts
            self.now = now
            self.connectivity = connectivity
            self.journals = journals
            self.ready = ready
        }
    }

    /// The recorders the daemon's parts are given.
    public let metrics: DaemonMetrics
    let registry: PrometheusCollectorRegistry
    let pending: Meter
    let dead: Meter
    let oldestPendingAge: Meter
    let connectivity: [(ConnectivityStatus.State, Meter)]
    let journalDiskBytes: [String: Meter]
    let journalFailed: [String: Meter]
    let ready: Meter
    let paused: Meter
    let holdOff: [(status: Int, meter: Meter)]
    let erasureOldestWaitingAge: Meter
    let encryptionEnabled: Meter
    let oldKeySegments: Meter
    let plainSegments: Meter
    let setAsideSegments: Meter
    let logLinesDropped: CoreMetrics.Counter
    let logWriter: LogLineWriter
    /// The writer's count the counter has been brought up to.
    let logLinesDroppedSeen = Mutex(0)

    /// The Prometheus text format's content type.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// - Parameter logWriter: the writer whose dropped lines `surveyd_log_lines_dropped_total`
    ///   counts (the process's stderr writer, shared by every daemon in the process).
    public init(logWriter: LogLineWriter = .standardError) {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = DaemonMetrics.durationBuckets
        self.registry = registry
        metrics = DaemonMetrics(factory: factory)
        typealias Name = DaemonMetrics.Name
        pending = Meter(label: Name.submissionsPending, factory: factory)
        dead = Meter(label: Name.submissionsDeadNow, factory: factory)
        oldestPendingAge = Meter(label: Name.oldestPendingAge, factory: factory)
        connectivity = ConnectivityStatus.State.allCases.map {
            ($0, Meter(label: Name.connectivityState, dimensions: [("state", $0.rawValue)], factory: factory))
        }
        journalDiskBytes = Dictionary(uniqueKeysWithValues: DaemonMetrics.journalNames.map {
            ($0, Meter(label: Name.journalDiskBytes, dimensions: [("journal", $0)], factory: factory))
        })
        journalFailed = Dictionary(uniqueKeysWithValues: DaemonMetrics.journalNames.map {
            ($0, Meter(label: Name.journalFailed, dimensions: [("journal", $0)], factory: factory))
        })
        ready = Meter(label: Name.ready, factory: factory)
        paused = Meter(label: Name.deliveryPaused, factory: factory)
        holdOff = [429, 503].map { ($0, Meter(label: Name.deliveryHoldOff, dimensions: [("status", "\($0)")], factory: factory)) }
        erasureOldestWaitingAge = Meter(label: Name.erasureOldestWaitingAge, factory: factory)
        encryptionEnabled = Meter(label: Name.encryptionEnabled, factory: factory)
        oldKeySegments = Meter(label: Name.journalSegmentsOldKey, factory: factory)
        plainSegments = Meter(label: Name.journalSegmentsPlain, factory: factory)
        setAsideSegments = Meter(label: Name.journalSegmentsSetAside, factory: factory)
        logLinesDropped = CoreMetrics.Counter(label: Name.logLinesDropped, factory: factory)
        self.logWriter = logWriter
    }

    /// Sets the series that hold for the daemon's whole run: `surveyd_info` (1, labelled with the
    /// device id sent with every upload and the version), the queue's disk cap (0 without one) and
    /// the erasure delay, so that a fleet's alert rules can name the kiosk and compare the queue's
    /// bytes and the erasure's oldest wait with what this kiosk was configured for.
    public func describe(device: String, version: String, queueDiskCap: Int?, erasureDelay: Duration) {
        let factory = PrometheusMetricsFactory(registry: registry)
        typealias Name = DaemonMetrics.Name
        Meter(label: Name.info, dimensions: [("device", device), ("version", version)], factory: factory).set(1)
        Meter(label: Name.queueDiskCap, factory: factory).set(queueDiskCap ?? 0)
        Meter(label: Name.erasureDelay, factory: factory).set(erasureDelay.timeInterval)
    }

    /// Every metric in the text format, with the gauges set from `snapshot`.
    public func exposition(_ snapshot: Snapshot) -> [UInt8] {
        if let counts = snapshot.counts {
            pending.set(counts.pending)
            dead.set(counts.dead)
            oldestPendingAge.set(counts.oldestPendingAt.map { max(0, snapshot.now.timeIntervalSince($0)) } ?? 0)
        }
        for (state, meter) in connectivity { meter.set(state == snapshot.connectivity ? 1 : 0) }
        for journal in snapshot.journals {
            journalDiskBytes[journal.name]?.set(journal.diskBytes)
            journalFailed[journal.name]?.set(journal.failed ? 1 : 0)
        }
        ready.set(snapshot.ready ? 1 : 0)
        paused.set(snapshot.paused ? 1 : 0)
        for (status, meter) in holdOff {
            let remaining = snapshot.holdOff.flatMap { $0.status == status ? max(0, $0.until.timeIntervalSince(snapshot.now)) : nil }
            meter.set(remaining ?? 0)
        }
        erasureOldestWaitingAge.set(snapshot.erasureLongestWait.map { max(0, $0.timeInterval) } ?? 0)
        if let encryption = snapshot.encryption {
            encryptionEnabled.set(encryption.state == EncryptionView.on ? 1 : 0)
            oldKeySegments.set(encryption.oldKeySegments)
            plainSegments.set(encryption.plainSegments)
            setAsideSegments.set(encryption.setAsideSegments.count)
        }
        let dropped = logWriter.droppedLines
        let newlyDropped = logLinesDroppedSeen.withLock { seen in
            defer { seen = max(seen, dropped) }
            return dropped - seen
        }
        if newlyDropped > 0 { logLinesDropped.increment(by: newlyDropped) }
        return registry.emitToBuffer()
    }
}

/// The connectivity probe, counting the changes of its verdict: the monitor changes its state
/// exactly when a probe's answer differs from the one before (the first answer included), and
/// it runs one probe at a time.
struct CountingProbe: ConnectivityProbe {
    let probe: any ConnectivityProbe
    let metrics: DaemonMetrics
    private let last = LastVerdict()

    init(_ probe: any ConnectivityProbe, metrics: DaemonMetrics) {
        self.probe = probe
        self.metrics = metrics
    }

    func isReachable() async -> Bool {
        let reachable = await probe.isReachable()
        if last.swap(reachable) != reachable { metrics.connectivityChanged(online: reachable) }
        return reachable
    }

    final class LastVerdict: Sendable {
        private let value = Mutex<Bool?>(nil)
        func swap(_ new: Bool) -> Bool? { value.withLock { old in defer { old = new }; return old } }
    }
}

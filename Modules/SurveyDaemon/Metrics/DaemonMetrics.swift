import ControlAPI
public import CoreMetrics
import Entities
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Storage

/// The daemon's metrics vocabulary: every counter and histogram it records, by its Prometheus
/// name (`doc/operations.md` lists them), made once from the `MetricsFactory` it is given.
///
/// Sessions, delivery and the journals record through this type; none of them knows the
/// backend. The daemon's runtime gives it a Prometheus factory with a registry of its own
/// (``MetricsExporter``), so that daemons in one process (tests) never share counts, and nothing
/// touches the global `MetricsSystem`. Recording is an atomic add for a counter and a short lock
/// for a histogram; every labelled series is made here, so the hot path allocates nothing.
/// Gauges (pending submissions, bytes on disk, connectivity, readiness) are read at scrape time
/// instead (``MetricsExporter``).
public final class DaemonMetrics: Sendable {
    /// The metric names, in one place.
    public enum Name {
        public static let answers = "surveyd_answers_total"
        public static let sessionsStarted = "surveyd_sessions_started_total"
        public static let sessionsClosed = "surveyd_sessions_closed_total"
        public static let qualityFlags = "surveyd_quality_flags_total"
        /// Kiosk respondents who declined the consent notice (no session was started for them).
        public static let consentDeclined = "surveyd_kiosk_consent_declined_total"
        public static let submissionsQueued = "surveyd_submissions_queued_total"
        public static let submissionsDelivered = "surveyd_submissions_delivered_total"
        public static let submissionsRetried = "surveyd_submissions_retried_total"
        public static let submissionsDead = "surveyd_submissions_dead_total"
        public static let deliveryLatency = "surveyd_delivery_latency_seconds"
        public static let connectivityChanges = "surveyd_connectivity_changes_total"
        public static let journalAppends = "surveyd_journal_appends_total"
        public static let journalAppendedBytes = "surveyd_journal_appended_bytes_total"
        public static let journalFsyncDuration = "surveyd_journal_fsync_duration_seconds"
        public static let definitionFetches = "surveyd_definition_fetches_total"
        public static let definitionCacheHits = "surveyd_definition_cache_hits_total"
        /// Steps of the wall clock of at least a few seconds, by `direction` (`forward`, `back`).
        public static let wallClockSteps = "surveyd_wall_clock_steps_total"
        /// Counted by the process's ``LogLineWriter``, brought up to date at scrape time.
        public static let logLinesDropped = "surveyd_log_lines_dropped_total"
        // Read at scrape time (``MetricsExporter``).
        public static let submissionsPending = "surveyd_submissions_pending"
        public static let submissionsDeadNow = "surveyd_submissions_dead"
        public static let oldestPendingAge = "surveyd_submissions_oldest_pending_age_seconds"
        public static let connectivityState = "surveyd_connectivity_state"
        public static let journalDiskBytes = "surveyd_journal_disk_bytes"
        public static let journalFailed = "surveyd_journal_failed"
        public static let ready = "surveyd_ready"
        public static let deliveryPaused = "surveyd_delivery_paused"
        public static let deliveryHoldOff = "surveyd_delivery_hold_off_seconds"
        public static let erasureOldestWaitingAge = "surveyd_erasure_oldest_waiting_age_seconds"
        public static let encryptionEnabled = "surveyd_encryption_enabled"
        public static let journalSegmentsOldKey = "surveyd_journal_segments_old_key"
        public static let journalSegmentsPlain = "surveyd_journal_segments_plain"
        public static let journalSegmentsSetAside = "surveyd_journal_segments_set_aside"
        // Set once at start (``MetricsExporter/describe(device:version:queueDiskCap:erasureDelay:)``).
        /// Always 1; its labels name the kiosk's device id and the daemon's version.
        public static let info = "surveyd_info"
        public static let queueDiskCap = "surveyd_queue_disk_cap_bytes"
        public static let erasureDelay = "surveyd_erasure_delay_seconds"
    }

    /// The histograms' buckets, by name: an fdatasync takes milliseconds, a delivery from
    /// seconds (online) to hours (offline for a while).
    public static let durationBuckets: [String: [Duration]] = [
        Name.journalFsyncDuration: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5].map(Duration.seconds),
        Name.deliveryLatency: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 24 * 3600].map(Duration.seconds),
    ]

    /// The journals the daemon has, by their `journal` label.
    public static let journalNames = ["sessions", "queue"]

    let answersAccepted: Counter
    let answersRejected: Counter
    /// Completed stages that raised each quality flag.
    let qualityFlags: [QualityFlag.Kind: Counter]
    let sessionsStarted: Counter
    let sessionsClosed: [SessionOutcome: Counter]
    let submissionsQueued: Counter
    let submissionsDelivered: Counter
    let submissionsRetried: Counter
    let submissionsDead: [DeadOutcome: Counter]
    let deliveryLatency: CoreMetrics.Timer
    let connectivityChanges: Counter
    let definitionFetches: [DefinitionFetchResult: Counter]
    let definitionCacheHits: Counter
    let consentsDeclined: Counter
    let wallClockSteps: (forward: Counter, back: Counter)
    let journals: [String: JournalMetrics]

    /// What a questionnaire fetch from the server came to, its `result` label.
    public enum DefinitionFetchResult: String, Sendable, CaseIterable {
        /// Good and cached.
        case fetched
        /// It has definition errors; not cached.
        case invalid
        /// The server could not be reached or refused it.
        case failed
        /// Good, but it could not be written to the cache.
        case notStored = "not_stored"
    }

    /// Makes every series from `factory`.
    public init(factory: any MetricsFactory) {
        answersAccepted = Counter(label: Name.answers, dimensions: [("result", "accepted")], factory: factory)
        answersRejected = Counter(label: Name.answers, dimensions: [("result", "rejected")], factory: factory)
        sessionsStarted = Counter(label: Name.sessionsStarted, factory: factory)
        qualityFlags = Dictionary(uniqueKeysWithValues: QualityFlag.Kind.allCases.map {
            ($0, Counter(label: Name.qualityFlags, dimensions: [("flag", $0.rawValue)], factory: factory))
        })
        sessionsClosed = Dictionary(uniqueKeysWithValues: SessionOutcome.allCases.map {
            ($0, Counter(label: Name.sessionsClosed, dimensions: [("outcome", $0.rawValue)], factory: factory))
        })
        submissionsQueued = Counter(label: Name.submissionsQueued, factory: factory)
        submissionsDelivered = Counter(label: Name.submissionsDelivered, factory: factory)
        submissionsRetried = Counter(label: Name.submissionsRetried, factory: factory)
        submissionsDead = Dictionary(uniqueKeysWithValues: [DeadOutcome.rejected, .unknown].map {
            ($0, Counter(label: Name.submissionsDead, dimensions: [("outcome", $0.rawValue)], factory: factory))
        })
        deliveryLatency = CoreMetrics.Timer(label: Name.deliveryLatency, factory: factory)
        connectivityChanges = Counter(label: Name.connectivityChanges, factory: factory)
        definitionFetches = Dictionary(uniqueKeysWithValues: DefinitionFetchResult.allCases.map {
            ($0, Counter(label: Name.definitionFetches, dimensions: [("result", $0.rawValue)], factory: factory))
        })
        definitionCacheHits = Counter(label: Name.definitionCacheHits, factory: factory)
        consentsDeclined = Counter(label: Name.consentDeclined, factory: factory)
        wallClockSteps = (
            Counter(label: Name.wallClockSteps, dimensions: [("direction", "forward")], factory: factory),
            Counter(label: Name.wallClockSteps, dimensions: [("direction", "back")], factory: factory))
        journals = Dictionary(uniqueKeysWithValues: Self.journalNames.map { ($0, JournalMetrics(journal: $0, factory: factory)) })
    }

    /// The stream of what happens, for `GET /v1/events`: the hooks below publish to it too.
    public let events = DaemonEvents()

    /// Records nothing: for the parts built without a daemon (tests, tools).
    public static let disabled = DaemonMetrics(factory: NOOPMetricsHandler.instance)

    // MARK: Recording

    /// A kiosk respondent declined the consent notice: counted, and published (without anything
    /// of the respondent) for the staff screen's counts of today.
    public func consentDeclined() {
        consentsDeclined.increment()
        events.publish(DaemonEvent(.consentDeclined))
    }

    /// A validation message went back instead of accepting the answer.
    public func answerRejected() { answersRejected.increment() }

    /// Session events were journaled: counts the accepted answers (and skips), the sessions
    /// started (`isNew` says whether a `stageStarted` begins a session rather than a follow-up
    /// stage) and the sessions closed by outcome.
    func journaled(_ events: [SessionEvent], isNew: (UUID) -> Bool) {
        for event in events {
            let session = event.session.text(uppercase: false)
            switch event {
            case .answerAccepted(_, let form, _):
                answersAccepted.increment()
                self.events.publish(DaemonEvent(.answerAccepted, session: session, question: form))
            case .answerSkipped(_, let form):
                answersAccepted.increment()
                self.events.publish(DaemonEvent(.answerAccepted, session: session, question: form, skipped: true))
            case .stageStarted(_, let stage, _, _, let at):
                if isNew(event.session) {
                    sessionsStarted.increment()
                    self.events.publish(DaemonEvent(.sessionStarted, at: at, session: session, stage: stage))
                }
            case .closed(_, let outcome, let at):
                sessionsClosed[outcome]?.increment()
                self.events.publish(DaemonEvent(.sessionClosed, at: at, session: session, outcome: outcome.rawValue))
            case .stageCompleted(_, let stage, let key, let at, let quality):
                for flag in quality?.flags ?? [] { qualityFlags[flag.kind]?.increment() }
                var queued = DaemonEvent(.stageQueued, at: at, session: session, stage: stage, key: key.text(uppercase: false))
                if let quality { queued.flags = quality.flagNames }
                self.events.publish(queued)
            case .followUpNamed, .wentBack, .answersErased, .active, .consentGiven:
                break
            }
        }
    }

    /// A completed stage was queued for delivery.
    public func submissionQueued() { submissionsQueued.increment() }

    /// A submission was delivered `latency` after it was queued.
    public func submissionDelivered(latency: TimeInterval) {
        submissionsDelivered.increment()
        deliveryLatency.recordNanoseconds(Int64(max(0, min(latency, 1e9)) * 1e9))
    }

    /// An upload failed for now and will be tried again.
    public func submissionRetried() {
        submissionsRetried.increment()
        events.publish(DaemonEvent(.retryScheduled))
    }

    /// A submission became a dead letter.
    public func submissionDead(_ outcome: DeadOutcome) { submissionsDead[outcome]?.increment() }

    /// The connectivity verdict changed (`unknown` to the first verdict included).
    public func connectivityChanged(online: Bool) {
        connectivityChanges.increment()
        events.publish(DaemonEvent(.connectivityChanged, connectivity: online ? "online" : "offline"))
    }

    /// Something began standing between surveyd and the server (`portal`, `clock_not_set`,
    /// `certificate_expired`), changed, or stopped (`online`).
    public func portalChanged(to state: String) {
        connectivityChanges.increment()
        events.publish(DaemonEvent(.connectivityChanged, connectivity: state))
    }

    /// A submission's fate is known: delivered (with the next stage the server named) or dead.
    public func finished(key: UUID, _ state: SubmissionState) {
        switch state {
        case .delivered(let next): events.publish(DaemonEvent(.delivered, key: key.text(uppercase: false), next: next))
        case .dead: events.publish(DaemonEvent(.dead, key: key.text(uppercase: false)))
        case .pending: break
        }
    }

    /// A questionnaire fetch from the server ended.
    public func definitionFetched(_ result: DefinitionFetchResult) { definitionFetches[result]?.increment() }

    /// A questionnaire request was answered from the cache instead of the server's copy.
    public func definitionCacheHit() { definitionCacheHits.increment() }

    /// The wall clock was stepped forward or back by at least the step detector's threshold.
    public func wallClockStepped(forward: Bool) { (forward ? wallClockSteps.forward : wallClockSteps.back).increment() }

    /// The observer for the journal named `name` (`sessions`, `queue`).
    public func journal(_ name: String) -> any JournalObserver {
        journals[name] ?? JournalMetrics(journal: name, factory: NOOPMetricsHandler.instance)
    }
}

/// One journal's series, labelled `journal`, recorded by its writer thread.
final class JournalMetrics: JournalObserver {
    let appends: Counter
    let bytes: Counter
    let fsync: CoreMetrics.Timer

    init(journal: String, factory: any MetricsFactory) {
        let label = [("journal", journal)]
        appends = Counter(label: DaemonMetrics.Name.journalAppends, dimensions: label, factory: factory)
        bytes = Counter(label: DaemonMetrics.Name.journalAppendedBytes, dimensions: label, factory: factory)
        fsync = CoreMetrics.Timer(label: DaemonMetrics.Name.journalFsyncDuration, dimensions: label, factory: factory)
    }

    func appended(records: Int, bytes: Int) {
        appends.increment(by: records)
        self.bytes.increment(by: bytes)
    }

    func synced(after duration: Duration) {
        let (seconds, attoseconds) = duration.components
        fsync.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension ServerDefinitionSource.FetchOutcome {
    /// The fetch's `result` label.
    var metricsResult: DaemonMetrics.DefinitionFetchResult {
        switch self {
        case .fetched: .fetched
        case .invalid: .invalid
        case .failed: .failed
        case .notStored: .notStored
        }
    }
}

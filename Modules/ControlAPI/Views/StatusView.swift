#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `GET /v1/status`.
public struct StatusView: Sendable, Hashable, Codable {
    public struct Connectivity: Sendable, Hashable, Codable {
        /// `online`, `offline`, `portal` (the server's address answers, but something else answers
        /// in its place, e.g. a Wi-Fi login page), `clock_not_set` (the server's certificate cannot
        /// be checked: this device's clock was never set), `certificate_expired` or `unknown` (no
        /// check has run yet).
        public var state: String
        /// When the state last changed.
        public var since: String?
        /// What answers in the server's place, while `state` is `portal`.
        public var portal: Portal?
        /// A warning about the server URL itself: plain `http`, which a portal or anyone on the
        /// network path can read and answer.
        public var notice: String?

        public init(state: String, since: String?) {
            self.state = state
            self.since = since
        }
    }

    public struct Queue: Sendable, Hashable, Codable {
        public var pending: Int
        public var inFlight: Int
        public var dead: Int
        public var delivered: Int
        public var oldestPendingAgeSeconds: Double?
        public var lastDeliveryAt: String?
        /// When the next upload can start: the later of the earliest pending submission's
        /// backoff and the delivery ramp's hold-off and pace; absent when nothing is pending.
        public var nextRetryAt: String?
        /// The bytes the queue's journal holds on disk (delivered bodies included until
        /// compaction or `surveyctl purge` removes them); absent from an older daemon.
        public var bytesOnDisk: Int?
        /// Why no upload starts before a time, while the server's 429/503 holds uploads back.
        public var holdOff: HoldOff?
        /// Why the next upload waits (the server could not be reached, or a failed upload's
        /// backoff) and until when at the latest; absent when nothing waits.
        public var waiting: Waiting?

        public init(pending: Int, inFlight: Int, dead: Int, delivered: Int, oldestPendingAgeSeconds: Double?, lastDeliveryAt: String?, nextRetryAt: String?, bytesOnDisk: Int? = nil) {
            self.bytesOnDisk = bytesOnDisk
            self.pending = pending
            self.inFlight = inFlight
            self.dead = dead
            self.delivered = delivered
            self.oldestPendingAgeSeconds = oldestPendingAgeSeconds
            self.lastDeliveryAt = lastDeliveryAt
            self.nextRetryAt = nextRetryAt
        }
    }

    /// Why the next upload waits, and until when at the latest.
    public struct Waiting: Sendable, Hashable, Codable {
        /// In plain words, e.g. `the survey server could not be reached (connectivity check at …);
        /// delivery goes on as soon as a check succeeds`.
        public var reason: String
        /// The latest time the next attempt starts (a successful connectivity check may start it sooner).
        public var until: String?

        public init(reason: String, until: String?) {
            self.reason = reason
            self.until = until
        }
    }

    /// The delivery ramp's hold-off after the server refused uploads as overloaded.
    public struct HoldOff: Sendable, Hashable, Codable {
        /// `the server asked to wait (503)`, or `the server said it is overloaded (429)` when
        /// it named no time.
        public var reason: String
        /// The server's answer, 429 or 503.
        public var status: Int
        /// No upload starts before this time.
        public var until: String

        public init(reason: String, status: Int, until: String) {
            self.reason = reason
            self.status = status
            self.until = until
        }
    }

    /// A stage whose newest questionnaire from the survey server has errors: sessions start from
    /// the last good copy until the server sends a good one.
    public struct DefinitionProblem: Sendable, Hashable, Codable {
        public var stage: String
        public var lang: String
        /// What is wrong with it, for the survey's owner.
        public var error: String
        /// When the server first sent it.
        public var since: String

        public init(stage: String, lang: String, error: String, since: String) {
            self.stage = stage
            self.lang = lang
            self.error = error
            self.since = since
        }
    }

    /// Whether a journal (`sessions` or `queue`) can write. While one cannot, answers or
    /// finished stages are refused with `503` and `surveyctl status` exits 74.
    public struct Journal: Sendable, Hashable, Codable {
        /// `sessions` or `queue`.
        public var name: String
        /// `ok`, or `failed` while writes fail.
        public var state: String
        /// The failing system call (`write`, `fdatasync`, …) and its errno's name (`ENOSPC`,
        /// `EIO`, …) and text, while failed.
        public var call: String?
        public var cause: String?
        public var causeText: String?
        /// Since when it has been failing.
        public var since: String?

        public init(name: String, state: String, call: String? = nil, cause: String? = nil, causeText: String? = nil, since: String? = nil) {
            self.name = name
            self.state = state
            self.call = call
            self.cause = cause
            self.causeText = causeText
            self.since = since
        }
    }

    public var version: String
    public var startedAt: String
    public var uptimeSeconds: Double
    public var connectivity: Connectivity
    public var queue: Queue
    /// Problems found in the journal (recovered corruption, torn tails), for the operator.
    public var journalProblems: [String]
    /// The open sessions, oldest activity first.
    public var sessions: [SessionView]
    /// Closed sessions that ended `queued` and whose upload was delivered later with a follow-up
    /// stage (`followUp`), newest first, at most ``StatusView/followUpLimit``.
    public var followUps: [SessionView]
    /// Stages whose newest questionnaire from the server has errors, by stage and language.
    public var definitionProblems: [DefinitionProblem]
    /// The journals and whether they can write.
    public var journals: [Journal]
    /// The id this kiosk sends with its uploads (`Survey-Device-Id`); nil from an older daemon.
    public var deviceId: String?
    /// Whether answers are encrypted at rest; nil from an older daemon.
    public var encryption: EncryptionView?
    /// Set while delivery is paused because the server refused the token.
    public var paused: Paused?
    /// Set while the survey server has no questionnaire for the first stage (`firstStage`).
    public var firstStageMissing: FirstStageMissing?
    /// What waits for erasure from the disk; nil from an older daemon.
    public var erasure: Erasure?
    /// The kiosk's service state and staff screen; nil without kiosk pages or from an older daemon.
    public var kiosk: KioskStatusView?

    public struct Paused: Sendable, Hashable, Codable {
        /// `the server refused the token (401)`.
        public var reason: String
        public var since: String
        public init(reason: String, since: String) {
            self.reason = reason
            self.since = since
        }
    }

    /// True while a journal cannot write.
    public var journalFailed: Bool { journals.contains { $0.state != "ok" } }

    /// The most follow-ups status lists.
    public static let followUpLimit = 20

    public init(version: String, startedAt: String, uptimeSeconds: Double, connectivity: Connectivity, queue: Queue, journalProblems: [String], sessions: [SessionView], followUps: [SessionView] = [], definitionProblems: [DefinitionProblem] = [], journals: [Journal] = []) {
        self.version = version
        self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds
        self.connectivity = connectivity
        self.queue = queue
        self.journalProblems = journalProblems
        self.sessions = sessions
        self.followUps = followUps
        self.definitionProblems = definitionProblems
        self.journals = journals
    }

    /// A reply without `followUps`, `definitionProblems` or `journals` (an older daemon) reads as none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(String.self, forKey: .version)
        startedAt = try c.decode(String.self, forKey: .startedAt)
        uptimeSeconds = try c.decode(Double.self, forKey: .uptimeSeconds)
        connectivity = try c.decode(Connectivity.self, forKey: .connectivity)
        queue = try c.decode(Queue.self, forKey: .queue)
        journalProblems = try c.decode([String].self, forKey: .journalProblems)
        sessions = try c.decode([SessionView].self, forKey: .sessions)
        followUps = try c.decodeIfPresent([SessionView].self, forKey: .followUps) ?? []
        definitionProblems = try c.decodeIfPresent([DefinitionProblem].self, forKey: .definitionProblems) ?? []
        journals = try c.decodeIfPresent([Journal].self, forKey: .journals) ?? []
        deviceId = try c.decodeIfPresent(String.self, forKey: .deviceId)
        paused = try c.decodeIfPresent(Paused.self, forKey: .paused)
        firstStageMissing = try c.decodeIfPresent(FirstStageMissing.self, forKey: .firstStageMissing)
        erasure = try c.decodeIfPresent(Erasure.self, forKey: .erasure)
        encryption = try c.decodeIfPresent(EncryptionView.self, forKey: .encryption)
        kiosk = try c.decodeIfPresent(KioskStatusView.self, forKey: .kiosk)
    }
}

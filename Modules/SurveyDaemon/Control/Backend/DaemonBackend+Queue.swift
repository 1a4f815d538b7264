// The queue's operator endpoints in the daemon: listing, showing, exporting and importing
// submissions, requeueing several dead letters, dropping one, and purging delivered bodies.

public import ControlAPI
import Entities
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import Storage

/// The queue operations the operator's endpoints need beyond ``QueueInspector``.
public protocol QueueAdministration: Sendable {
    func pendingSubmissions() async throws -> [QueuedSubmission]
    func submission(_ id: SubmissionID) async throws -> QueuedSubmission?
    /// One submission, read from its own record only.
    func entry(_ id: SubmissionID, withBody: Bool) async throws -> SubmissionQueue.Entry?
    /// A page of the pending or dead submissions in `states` after `after` (see
    /// `SubmissionQueue.exportLive(states:after:limit:)`), and where the next page starts.
    func exportPage(_ states: Set<SubmissionQueue.ExportedSubmission.State>, after: SubmissionID?, limit: Int) async throws -> (submissions: [SubmissionQueue.ExportedSubmission], next: SubmissionID?)
    /// The delivered submissions whose bodies are still on disk.
    func exportDelivered() async throws -> [SubmissionQueue.ExportedSubmission]
    func importSubmission(_ metadata: SubmissionMetadata, body: [UInt8]) async throws -> SubmissionQueue.ImportResult
    func drop(_ id: SubmissionID) async throws -> DeadSubmission?
    func purge() async throws -> SubmissionQueue.PurgeReport
    /// The bytes the queue's journal holds on disk.
    var diskBytes: Int { get }
}

extension StoredSubmissionQueue: QueueAdministration {
    public func pendingSubmissions() async throws -> [QueuedSubmission] { await queue.pending(limit: .max) }
    public func submission(_ id: SubmissionID) async throws -> QueuedSubmission? { await queue.submission(id) }
    public func entry(_ id: SubmissionID, withBody: Bool) async throws -> SubmissionQueue.Entry? {
        try await queue.entry(id, withBody: withBody)
    }

    public func exportPage(_ states: Set<SubmissionQueue.ExportedSubmission.State>, after: SubmissionID?, limit: Int) async throws -> (submissions: [SubmissionQueue.ExportedSubmission], next: SubmissionID?) {
        try await queue.exportLive(states: states, after: after, limit: limit)
    }

    public func exportDelivered() async throws -> [SubmissionQueue.ExportedSubmission] {
        try await queue.exportDelivered()
    }

    /// Queues it and wakes the worker.
    public func importSubmission(_ metadata: SubmissionMetadata, body: [UInt8]) async throws -> SubmissionQueue.ImportResult {
        let result = try await queue.importSubmission(metadata, body: body)
        if case .queued = result { wakeup.wake() }
        return result
    }

    public func drop(_ id: SubmissionID) async throws -> DeadSubmission? { try await queue.drop(id) }
    public func purge() async throws -> SubmissionQueue.PurgeReport { try await queue.purge() }
    public var diskBytes: Int { queue.diskBytes }
}

extension DaemonBackend {
    /// The queue's administration, which the daemon gives the backend (``queueAdministration``);
    /// without one the operator endpoints answer 404.
    var administration: any QueueAdministration {
        get throws {
            guard let queueAdministration else { throw ControlError.noQueueAdministration }
            return queueAdministration
        }
    }

    /// Runs a queue operation, reporting its failure as `503 queue_unavailable`.
    func onQueue<T>(_ what: String, _ body: (any QueueAdministration) async throws -> T) async throws -> T {
        let administration = try administration
        do {
            return try await body(administration)
        } catch let error as ControlError {
            throw error
        } catch {
            throw ControlError.unavailable("queue_unavailable", "\(what): \(error); check the state directory")
        }
    }

    public func queue() async throws -> QueueListView {
        let retries = await worker.retryStates()
        let time = now()
        let pending = try await onQueue("the queue cannot be read") { try await $0.pendingSubmissions() }
        let dead = try await onQueue("the dead letters cannot be read") { _ in try await inspector.deadLetters() }
        return QueueListView(
            pending: pending.map { entry($0, dead: nil, retry: retries[$0.id], at: time) },
            dead: dead.map { entry($0.submission, dead: $0, retry: retries[$0.submission.id], at: time) })
    }

    public func queueEntry(id: String, answers: Bool) async throws -> QueueEntryView {
        let notFound = ControlError.notFound("no_such_submission", "no submission \(id) is pending or dead; `surveyctl queue` lists them")
        guard let submissionID = SubmissionID(id) else { throw notFound }
        let found = try await onQueue("submission \(id) cannot be read") { try await $0.entry(submissionID, withBody: answers) }
        guard let found else { throw notFound }
        var view = entry(found.submission, dead: found.deadLetter, retry: await worker.retryStates()[submissionID], at: now())
        view.session = found.session?.text(uppercase: false)
        view.headers = found.headers.isEmpty ? nil : found.headers
        if answers { view.body = found.body.map { String(decoding: $0, as: UTF8.self) } }
        return view
    }

    public func exportQueue(_ state: QueueExportState, after: String?, limit: Int) async throws -> QueueExportPage {
        var cursor: SubmissionID?
        if let after {
            guard let id = SubmissionID(after) else { throw ControlError.badRequest("bad_cursor", "\(after.debugDescription) names no submission; start the export again") }
            cursor = id
        }
        let submissions: [SubmissionQueue.ExportedSubmission]
        let next: SubmissionID?
        switch state {
        case .pending, .dead:
            (submissions, next) = try await onQueue("the queue cannot be exported") { try await $0.exportPage([state == .pending ? .pending : .dead], after: cursor, limit: limit) }
        case .delivered:
            // Delivered bodies are read from the segment files in one pass (they are what
            // compaction or a purge removes next): one page.
            submissions = try await onQueue("the queue cannot be exported") { try await $0.exportDelivered() }
            next = nil
        }
        let lines = submissions.map { exported in
            QueueExportLine(
                id: exported.id.description, state: exported.state.rawValue, idempotencyKey: exported.idempotencyKey.text(uppercase: false),
                stage: exported.metadata.stage, lang: exported.metadata.language, definitionHash: exported.metadata.definitionHash,
                queuedAt: exported.metadata.queuedAt.iso8601Seconds, session: exported.metadata.session?.text(uppercase: false),
                body: String(decoding: exported.body, as: UTF8.self), headers: exported.metadata.headers.isEmpty ? nil : exported.metadata.headers)
        }
        return QueueExportPage(lines: lines, next: next?.description)
    }

    public func importQueued(_ line: QueueExportLine) async throws -> QueueEntryView {
        func invalid(_ what: String) -> ControlError { .badRequest("body_invalid", "the exported line is not valid: \(what); import a line `surveyctl queue export` wrote, unchanged") }
        guard let key = UUID(canonicalText: line.idempotencyKey) else { throw invalid("idempotencyKey \(line.idempotencyKey.debugDescription) is not a UUID") }
        guard !line.stage.isEmpty, line.stage.unicodeScalars.allSatisfy({ ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" || $0 == "_" }) else {
            throw invalid("stage \(line.stage.debugDescription) is not a stage name (letters, digits, -, _)")
        }
        guard Language(rawValue: line.lang) != nil else { throw invalid("lang \(line.lang.debugDescription) is not one of \(Language.choices)") }
        guard let queuedAt = try? Date(line.queuedAt, strategy: .iso8601) else { throw invalid("queuedAt \(line.queuedAt.debugDescription) is not an ISO 8601 time") }
        var session: UUID?
        if let text = line.session {
            guard let parsed = UUID(canonicalText: text) else { throw invalid("session \(text.debugDescription) is not a UUID") }
            session = parsed
        }
        guard !line.body.isEmpty else { throw invalid("body is empty") }
        let metadata = SubmissionMetadata(
            key: key, stage: line.stage, language: line.lang, definitionHash: line.definitionHash, queuedAt: queuedAt, session: session, headers: line.headers ?? [:])
        let result = try await onQueue("the submission cannot be imported") { try await $0.importSubmission(metadata, body: Array(line.body.utf8)) }
        switch result {
        case .queued(let submission):
            return entry(submission, dead: nil, retry: nil, at: now())
        case .known(let state):
            let where_: String = switch state {
            case .pending: "is pending in this queue"
            case .dead: "is a dead letter in this queue (`surveyctl requeue` sends it again)"
            case .delivered: "was delivered from this queue"
            }
            throw ControlError.conflict("already_queued", "idempotency key \(line.idempotencyKey) \(where_); nothing was imported")
        }
    }

    public func requeue(_ request: RequeueManyRequest) async throws -> RequeueManyReply {
        let all = request.all ?? false
        let ids = request.ids ?? []
        guard all != !ids.isEmpty else {
            throw ControlError.badRequest("body_invalid", "give either \"ids\" (a non-empty list of dead letter ids) or \"all\": true; see doc/control-api.md")
        }
        let letters = try await deadLetters()
        let chosen: [String]
        if all {
            chosen = letters.map(\.id)
        } else {
            // Every id must name a dead letter before any is requeued.
            for id in ids where !letters.contains(where: { $0.id == id }) {
                throw ControlError.notFound("no_such_dead_letter", "no dead letter \(id); nothing was requeued; `surveyctl dead` lists them")
            }
            chosen = ids
        }
        var requeued: [DeadLetterView] = []
        for id in chosen {
            do {
                requeued.append(try await requeue(deadLetter: id, RequeueRequest()))
            } catch let error as ControlError where error.code == "no_such_dead_letter" {
                continue  // requeued or dropped meanwhile by another request
            }
        }
        return RequeueManyReply(requeued: requeued)
    }

    public func drop(deadLetter id: String) async throws -> DeadLetterView {
        let notFound = ControlError.notFound("no_such_dead_letter", "no dead letter \(id); `surveyctl dead` lists them")
        guard let submission = SubmissionID(id) else { throw notFound }
        guard let letter = try await onQueue("dead letter \(id) cannot be dropped", { try await $0.drop(submission) }) else { throw notFound }
        erasure?.answersMayWait()
        return Self.view(letter)
    }

    public func purge() async throws -> PurgeReply {
        if let erasure { return try await erasePurging(erasure) }
        let report = try await onQueue("the queue cannot be purged") { try await $0.purge() }
        return PurgeReply(bytesBefore: report.bytesBefore, bytesAfter: report.bytesAfter, removedSegments: report.removedSegments.count, carried: report.carriedRecords)
    }

    /// The bytes the queue's journal holds; nil when the queue does not say.
    var queueDiskBytes: Int? { queueAdministration?.diskBytes }

    func entry(_ submission: QueuedSubmission, dead: DeadSubmission?, retry: DeliveryWorker.RetryState?, at time: Date) -> QueueEntryView {
        QueueEntryView(
            id: submission.id.description, state: dead == nil ? "pending" : "dead", stage: submission.metadata.stage, lang: submission.metadata.language,
            queuedAt: submission.metadata.queuedAt.iso8601Seconds, ageSeconds: max(0, time.timeIntervalSince(submission.metadata.queuedAt)),
            idempotencyKey: submission.idempotencyKey.text(uppercase: false), attempts: retry?.attempts ?? 0,
            lastError: dead?.reason ?? retry?.lastError, nextRetryAt: dead == nil ? retry?.nextRetryAt?.iso8601Seconds : nil,
            outcome: dead?.outcome.rawValue)
    }
}

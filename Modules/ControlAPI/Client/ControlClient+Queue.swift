#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The queue's operator endpoints (`doc/control-api.md`, "The queue").
extension ControlClient {
    public func queue() async throws(ControlClientError) -> QueueListView { try await send("GET", "/v1/queue") }

    public func queueEntry(id: String, answers: Bool) async throws(ControlClientError) -> QueueEntryView {
        try await send("GET", "/v1/queue/\(Self.escape(id))" + (answers ? "?answers=true" : ""))
    }

    /// The export as the daemon sends it: one JSON line per submission.
    public func exportQueue(_ state: QueueExportState) async throws(ControlClientError) -> Data {
        let (status, data) = try await exchange("GET", "/v1/queue/export?state=\(state.rawValue)", bodyData: nil)
        guard (200..<300).contains(status) else { throw Self.failure(status: status, data) }
        return data
    }

    /// Puts one exported line back in the queue, under its key.
    public func importQueued(line: Data) async throws(ControlClientError) -> QueueEntryView { try await send("POST", "/v1/queue/import", bodyData: line) }

    public func requeue(_ request: RequeueManyRequest) async throws(ControlClientError) -> RequeueManyReply { try await send("POST", "/v1/requeue", body: request) }

    public func drop(deadLetter id: String) async throws(ControlClientError) -> DeadLetterView { try await send("DELETE", "/v1/dead/\(Self.escape(id))") }

    public func purge() async throws(ControlClientError) -> PurgeReply { try await send("POST", "/v1/purge") }
}

extension Rendering {
    /// One line of `surveyctl queue`.
    public static func queueEntry(_ e: QueueEntryView) -> String {
        var parts = ["\(e.id)", e.state, "stage \(e.stage) (\(e.lang))", "\(duration(e.ageSeconds)) old", "\(e.attempts) attempt\(e.attempts == 1 ? "" : "s")"]
        if let error = e.lastError { parts.append("last error: \(error)") }
        if let next = e.nextRetryAt { parts.append("next retry \(next)") }
        if let outcome = e.outcome { parts.append("outcome \(outcome)") }
        return parts.joined(separator: "  ")
    }

    /// `surveyctl queue show`.
    public static func queueDetails(_ e: QueueEntryView) -> [String] {
        var lines = [queueEntry(e), "  key: \(e.idempotencyKey)", "  queued: \(e.queuedAt)"]
        if let session = e.session { lines.append("  session: \(session)") }
        for (name, value) in (e.headers ?? [:]).sorted(by: { $0.key < $1.key }) { lines.append("  \(name): \(value)") }
        if let body = e.body { lines.append("  answers: \(body)") }
        return lines
    }
}

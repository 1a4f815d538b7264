#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Human-readable text for control API replies, as `surveyctl` prints them.
public enum Rendering {
    /// A session: its id and progress, then the question with what it accepts, or its outcome.
    public static func session(_ s: SessionView) -> [String] {
        var lines = ["session \(s.id)  stage \(s.stage) (\(s.lang))  " + progress(s)]
        if let q = s.question {
            lines += question(q)
        } else if let outcome = s.outcome {
            lines.append("outcome: \(outcome)" + outcomeNote(outcome, followUp: s.followUp))
        } else if s.state == "awaiting_delivery" {
            lines.append("stage \(s.stage) is complete and being delivered")
        }
        return lines
    }

    static func progress(_ s: SessionView) -> String {
        switch s.state {
        case "asking": "question \(s.current) of \(s.total)"
        case "awaiting_delivery": "all \(s.total) questions answered"
        default: "closed"
        }
    }

    static func outcomeNote(_ outcome: String, followUp: String?) -> String {
        switch outcome {
        case "thanks": " (survey complete, all answers delivered)"
        case "no_target": " (not eligible; nothing was uploaded)"
        case "queued": followUp.map { " (delivered later; the server named stage \($0) next)" } ?? " (answers saved; they will be delivered when the server is reachable)"
        case "abandoned": " (idle too long; answers were not uploaded)"
        default: ""
        }
    }

    /// A question and what it accepts.
    public static func question(_ q: QuestionView) -> [String] {
        var lines = ["", "  \(q.text)" + (q.required ? "" : "  (optional: --skip to leave it out)")]
        lines.append("  [\(q.name), \(q.type)] accepts:")
        lines += q.accepts.map { "    \($0)" }
        return lines
    }

    /// The daemon's status.
    public static func status(_ s: StatusView, now: Date = Date()) -> [String] {
        var lines = [
            "surveyd \(s.version), up \(duration(s.uptimeSeconds))",
            "connectivity: \(s.connectivity.state)" + (s.connectivity.since.map { " since \($0)" } ?? ""),
            "queue: \(s.queue.pending) pending, \(s.queue.inFlight) in flight, \(s.queue.dead) dead, \(s.queue.delivered) delivered",
        ]
        if let deviceId = s.deviceId { lines.insert("device: \(deviceId)", at: 1) }
        lines.insert(contentsOf: connectivityDetails(s.connectivity), at: lines.count - 1)
        if let age = s.queue.oldestPendingAgeSeconds { lines.append("  oldest pending: \(duration(age)) old") }
        if let last = s.queue.lastDeliveryAt { lines.append("  last delivery: \(last)") }
        if let next = s.queue.nextRetryAt { lines.append("  next retry: \(next)") }
        if let hold = s.queue.holdOff { lines.append("  holding off: \(hold.reason), until \(hold.until)") }
        if let waiting = s.queue.waiting { lines.append("  waiting: \(waiting.reason)" + (waiting.until.map { "; at the latest until \($0)" } ?? "")) }
        if let bytes = s.queue.bytesOnDisk { lines.append("  on disk: \(bytes) bytes") }
        if s.queue.dead > 0 { lines.append("  dead letters need attention: `surveyctl dead` lists them, `surveyctl requeue ID` retries one") }
        if let paused = s.paused {
            lines.append("  delivery paused since \(paused.since): \(paused.reason); fix the token file (delivery resumes when it changes) or run `surveyctl resume`")
        }
        if let encryption = s.encryption { lines += encryption.lines }
        lines += journal(s)
        lines += firstStage(s)
        if let erasure = s.erasure { lines.append(erasure.line) }
        if let kiosk = s.kiosk { lines += kiosk.lines }
        let open = s.sessions.filter { $0.state != "closed" }
        lines.append("sessions: \(open.count) open")
        lines += open.map { "  \($0.id)  stage \($0.stage) (\($0.lang))  \(progress($0))" }
        let followUps = s.followUps.filter { $0.followUp != nil }
        if !followUps.isEmpty {
            lines.append("follow-ups: \(followUps.count) (queued sessions delivered later)")
            lines += followUps.map { "  \($0.id)  stage \($0.stage) (\($0.lang))  closed \($0.lastActivity), delivered later: the server named stage \($0.followUp ?? "") next" }
        }
        if !s.definitionProblems.isEmpty {
            lines.append("definitions: the survey server sends questionnaires with errors for \(s.definitionProblems.count) stage\(s.definitionProblems.count == 1 ? "" : "s"); sessions start from the last good copy. Tell the survey's owner:")
            lines += s.definitionProblems.map { "  - stage \($0.stage) (\($0.lang)) since \($0.since): \($0.error)" }
        }
        return lines
    }

    /// `journal: ok`; or the journals that cannot write, then the problems found at start.
    static func journal(_ s: StatusView) -> [String] {
        let failed = s.journals.filter { $0.state != "ok" }
        let problems = s.journalProblems.count
        var lines: [String] = []
        if !failed.isEmpty {
            lines.append("journal: FAILED: answers are refused while it cannot write")
            lines += failed.map { j in
                "  - \(j.name): \(j.call ?? "write") failed with \(j.cause ?? "an error")\(j.causeText.map { " (\($0))" } ?? "")"
                    + (j.since.map { " since \($0)" } ?? "") + "; surveyd retries by itself: free space in the state directory or check the disk"
            }
            if problems > 0 { lines.append("  and \(problems) problem\(problems == 1 ? "" : "s") found at start:") }
        } else if problems > 0 {
            lines.append("journal: \(problems) problem\(problems == 1 ? "" : "s")")
        } else {
            lines.append("journal: ok")
        }
        lines += s.journalProblems.map { "  - \($0)" }
        return lines
    }

    /// A dead letter, with what a requeue would do with its key.
    public static func deadLetter(_ d: DeadLetterView) -> String {
        let outcome = d.outcome == "rejected"
            ? "rejected by the server: requeue sends it with a new key"
            : "outcome unknown (the server may hold it under its key): requeue keeps the key"
        return "\(d.id)  stage \(d.stage) (\(d.lang))  queued \(d.queuedAt)  key \(d.idempotencyKey)\n    reason: \(d.reason)\n    \(outcome)"
    }

    /// The reply to a requeue: which key the letter is sent with now.
    public static func requeued(_ d: DeadLetterView) -> String {
        if let previous = d.previousIdempotencyKey {
            return "requeued \(d.id) (stage \(d.stage)) with a new idempotency key \(d.idempotencyKey) (it was \(previous))"
        }
        return "requeued \(d.id) (stage \(d.stage)); it keeps its idempotency key \(d.idempotencyKey)"
    }

    /// `3d 4h`, `5m 2s`, `12s`.
    public static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let (d, h, m, s) = (total / 86400, total / 3600 % 24, total / 60 % 60, total % 60)
        if d > 0 { return "\(d)d \(h)h" }
        if h > 0 { return "\(h)h \(m)m" }
        if m > 0 { return "\(m)m \(s)s" }
        return "\(s)s"
    }
}

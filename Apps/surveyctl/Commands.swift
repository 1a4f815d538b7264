import ArgumentParser
import ControlAPI
import Entities
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start a survey session and show its first question.")

    @Option(name: .customLong("type"), help: ArgumentHelp("The first stage's type ID (default: the daemon's firstStage, `common` unless configured).", valueName: "type-id"))
    var typeId: String?

    @Option(help: "Language: \(Language.choices) (default: the daemon's).")
    var lang: String?

    @OptionGroup var daemon: DaemonOptions

    func validate() throws {
        if let lang, Language(rawValue: lang) == nil { throw ValidationError("--lang must be \(Language.choices), not \(lang)") }
    }

    func run() async throws {
        let session = try await request { () async throws(ControlClientError) in
            try await daemon.client.startSession(StartSessionRequest(typeId: typeId, lang: lang))
        }
        daemon.output(session) { Rendering.session(session) }
    }
}

struct Answer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer the current question of a session.",
        discussion: """
            Give a choice by its value or 1-based position, several for a checkbox, `extra` \
            followed by free text where offered, a number, a score from 1 to 7, or text. \
            Prints the next question, the validation message (exit 65), or the outcome.

            With --question (and --position), the answer is for that question only, as it was \
            shown (`[NAME, type]`, `question N of M`): when the session has moved on, nothing is \
            recorded and the question now asked is shown (question_changed, exit 65), and the same \
            answer given twice is recorded once. Scripts and kiosks should always pass them.
            """
    )

    @Option(help: "The session (default: the only open session).")
    var session: String?

    @Option(help: ArgumentHelp("The name of the question being answered, as shown in brackets.", valueName: "name"))
    var question: String?

    @Option(help: ArgumentHelp("The number of the question being answered in its stage (question N of M).", valueName: "n"))
    var position: Int?

    @Flag(help: "Skip an optional question.")
    var skip = false

    @Argument(help: "The answer.")
    var values: [String] = []

    @OptionGroup var daemon: DaemonOptions

    func validate() throws {
        if skip && !values.isEmpty { throw ValidationError("give an answer or --skip, not both") }
        if !skip && values.isEmpty { throw ValidationError("give an answer (e.g. surveyctl answer 2), or --skip for an optional question") }
        if let position, position < 1 { throw ValidationError("--position is the question's number in its stage, from 1, not \(position)") }
    }

    func run() async throws {
        let reply = try await request { () async throws(ControlClientError) in
            try await daemon.client.answer(AnswerRequest(session: session, values: values, skip: skip, question: question, position: position))
        }
        daemon.output(reply) {
            (reply.accepted ? [] : ["not accepted: \(reply.message ?? "")"])
                + (reply.repeated == true ? ["(this answer was recorded already; nothing new was recorded)"] : [])
                + Rendering.session(reply.session)
        }
        if !reply.accepted { throw ExitCode(65) }
    }
}

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the daemon's connectivity, queue, journal and sessions.",
        discussion: """
            Exits 74 while a journal cannot write (answers are refused meanwhile), 75 while the \
            daemon is not ready for another reason (starting or stopping; see surveyctl health).
            """)

    @OptionGroup var daemon: DaemonOptions

    func run() async throws {
        let status = try await request { () async throws(ControlClientError) in try await daemon.client.status() }
        daemon.output(status) { Rendering.status(status) }
        // While a journal cannot write, answers are refused: scripts and monitors must see it.
        if status.journalFailed {
            printError("surveyctl status: a journal cannot write; answers are refused until it can (see `journal:` above)")
            throw ExitCode(74)
        }
        // Not ready for another reason (starting, stopping). An older daemon without
        // /v1/health has nothing more to say.
        if let health = try? await daemon.client.health(), !health.ready {
            printError("surveyctl status: surveyd is not ready: " + health.reasons.map(\.message).joined(separator: "; "))
            throw ExitCode(health.journalFailed ? 74 : 75)
        }
    }
}

struct Flush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Attempt every pending submission now.",
        discussion: """
            Ignores backoff delays but not the connectivity check. With --wait, asks for one flush \
            and then follows the daemon's events (GET /v1/events), reading the queue again after \
            each delivery, retry or connectivity change, without flushing again, so a server's \
            Retry-After is kept; each time the pending count or connectivity changes, a \
            progress line goes to stderr. Exits 0 once the queue is drained, or 75 when the \
            timeout passes first.
            """
    )

    /// The longest --timeout: one day.
    static let maximumTimeout: Double = 86_400

    @Flag(help: "Wait until the queue is drained.")
    var wait = false

    @Option(help: "With --wait, give up after this many seconds (at most 86400).")
    var timeout: Double = 60

    @OptionGroup var daemon: DaemonOptions

    func validate() throws {
        guard timeout.isFinite, timeout <= Self.maximumTimeout else {
            throw ValidationError("--timeout must be a finite number of seconds, at most 86400 (one day), not \(timeout)")
        }
        if timeout <= 0 { throw ValidationError("--timeout must be above 0 seconds") }
    }

    func run() async throws {
        let client = daemon.client
        let reply: FlushReply
        if wait {
            var shown: (pending: Int, connectivity: String)?
            reply = try await request { () async throws(ControlClientError) in
                try await client.flushAndWait(timeout: .milliseconds(Int64((timeout * 1000).rounded(.up)))) { progress in
                    guard shown.map({ $0 != (progress.pending, progress.connectivity) }) ?? true else { return }
                    shown = (progress.pending, progress.connectivity)
                    printError("flush: \(progress.pending) pending (\(progress.connectivity))")
                }
            }
        } else {
            reply = try await request { () async throws(ControlClientError) in try await client.flush(FlushRequest(wait: false)) }
        }
        daemon.output(reply) {
            ["flush: \(reply.pending) pending, \(reply.dead) dead, connectivity \(reply.connectivity)" + (reply.drained ? ", drained" : "")]
        }
        if wait && !reply.drained {
            printError("surveyctl flush: \(reply.pending) still pending after \(Rendering.duration(timeout)) (\(reply.connectivity)); they stay queued and will be delivered when the server is reachable")
            throw ExitCode(75)
        }
    }
}

struct Dead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List submissions the server refused for good (dead letters).")

    @OptionGroup var daemon: DaemonOptions

    func run() async throws {
        let letters = try await request { () async throws(ControlClientError) in try await daemon.client.deadLetters() }
        daemon.output(letters) { letters.isEmpty ? ["no dead letters"] : letters.map(Rendering.deadLetter) }
    }
}

struct Requeue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put dead letters back in the delivery queue: one, several, or --all.",
        discussion: """
            A letter the server rejected is sent under a new idempotency key (the server holds \
            its refusal under the old one); one whose outcome is unknown keeps its key, so that \
            the server cannot count it twice. For one letter, --keep-key and --new-key override.
            """
    )

    @Argument(help: "The dead letters' ids, as `surveyctl dead` shows them.")
    var ids: [String] = []

    @Flag(help: "Every dead letter.")
    var all = false

    @Flag(help: "Send it with the key it was last sent with (one letter only).")
    var keepKey = false

    @Flag(help: "Send it with a new key (one letter only; if the server did accept it, it may count it twice).")
    var newKey = false

    @OptionGroup var daemon: DaemonOptions

    func validate() throws {
        if keepKey && newKey { throw ValidationError("give --keep-key or --new-key, not both") }
        if all && !ids.isEmpty { throw ValidationError("give ids or --all, not both") }
        if !all && ids.isEmpty { throw ValidationError("give the id of a dead letter (surveyctl dead lists them), several ids, or --all") }
        if (keepKey || newKey) && (all || ids.count > 1) { throw ValidationError("--keep-key and --new-key apply to one letter at a time") }
    }

    func run() async throws {
        if !all && ids.count == 1 {
            let key: RequeueRequest.Key? = keepKey ? .keep : newKey ? .new : nil
            let letter = try await request { () async throws(ControlClientError) in try await daemon.client.requeue(deadLetter: ids[0], RequeueRequest(key: key)) }
            daemon.output(letter) { [Rendering.requeued(letter)] }
            return
        }
        let body = all ? RequeueManyRequest(all: true) : RequeueManyRequest(ids: ids)
        let reply = try await request { () async throws(ControlClientError) in try await daemon.client.requeue(body) }
        daemon.output(reply) { reply.requeued.isEmpty ? ["no dead letters"] : reply.requeued.map(Rendering.requeued) }
    }
}

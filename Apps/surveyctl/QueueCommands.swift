public import ArgumentParser
import ControlAPI
import Foundation

/// `surveyctl queue`: the submissions waiting in the daemon's queue, for an operator.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "List, show, export, import or drop queued submissions.",
        subcommands: [QueueList.self, QueueShow.self, QueueExport.self, QueueImport.self, QueueDrop.self],
        defaultSubcommand: QueueList.self)
}

struct QueueList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Pending and dead submissions: id, stage, language, age, attempts, last error, next retry.")

    @OptionGroup var daemon: DaemonOptions

    func run() async throws {
        let list = try await request { () async throws(ControlClientError) in try await daemon.client.queue() }
        daemon.output(list) {
            if list.pending.isEmpty && list.dead.isEmpty { return ["the queue is empty"] }
            return ["pending: \(list.pending.count)"] + list.pending.map { "  " + Rendering.queueEntry($0) }
                + ["dead: \(list.dead.count)"] + list.dead.map { "  " + Rendering.queueEntry($0) }
        }
    }
}

struct QueueShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "One submission; its answers only with --answers (they are personal data).")

    @Argument(help: "The submission's id, as `surveyctl queue` shows it.")
    var id: String

    @Flag(help: "Include the answers sent.")
    var answers = false

    @OptionGroup var daemon: DaemonOptions

    func run() async throws {
        let entry = try await request { () async throws(ControlClientError) in try await daemon.client.queueEntry(id: id, answers: answers) }
        daemon.output(entry) { Rendering.queueDetails(entry) }
    }
}

struct QueueExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print one JSON line per submission (its idempotency key and body), for another machine, an audit or a manual delivery.",
        discussion: "surveyctl queue export --pending > pending.ndjson; then surveyctl queue import < pending.ndjson on the other machine. The lines hold answers in the clear: a file they go to is made owner-only (mode 0600).")

    @Flag(help: "Which submissions (default: pending). Delivered ones only while their bodies are still on disk.")
    var state: QueueExportState = .pending

    @OptionGroup var daemon: DaemonOptions

    func run() async throws {
        if let problem = OwnerOnlyOutput.restrict(FileHandle.standardOutput.fileDescriptor) { throw ValidationError(problem) }
        let data = try await request { () async throws(ControlClientError) in try await daemon.client.exportQueue(state) }
        FileHandle.standardOutput.write(data)
    }
}

struct QueueImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Put exported submissions back in the queue, under their keys (a key the queue already has is refused).",
        discussion: "Reads the lines of `surveyctl queue export` from FILE or standard input. Exits 65 when a line was refused; the others are imported.")

    @Argument(help: "The export file (default: standard input).")
    var file: String?

    @OptionGroup var daemon: DaemonOptions

    func run() async throws {
        let data: Data
        if let file {
            guard let read = FileManager.default.contents(atPath: file) else {
                printError("surveyctl queue import: cannot read \(file)")
                throw ExitCode(66)
            }
            data = read
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        var imported = 0
        var refused = 0
        for (index, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() where !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) {
            do throws(ControlClientError) {
                let entry = try await daemon.client.importQueued(line: Data(line))
                imported += 1
                print("line \(index + 1): imported as \(entry.id) (stage \(entry.stage), key \(entry.idempotencyKey))")
            } catch where error.kind == .daemonUnavailable {
                printError("surveyctl: \(error.message)")
                throw ExitCode(69)
            } catch {
                refused += 1
                printError("line \(index + 1): refused: \(error.message)")
            }
        }
        print("\(imported) imported, \(refused) refused")
        if refused > 0 { throw ExitCode(65) }
    }
}

struct QueueDrop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop",
        abstract: "Delete a dead letter for good (the daemon logs it). Needs --yes.")

    @Argument(help: "The dead letter's id, as `surveyctl dead` shows it.")
    var id: String

    @Flag(help: "Confirm: the submission is deleted and never delivered.")
    var yes = false

    @OptionGroup var daemon: DaemonOptions

    func validate() throws {
        guard yes else { throw ValidationError("dropping dead letter \(id) deletes it for good; add --yes to confirm") }
    }

    func run() async throws {
        let letter = try await request { () async throws(ControlClientError) in try await daemon.client.drop(deadLetter: id) }
        daemon.output(letter) { ["dropped \(letter.id) (stage \(letter.stage), key \(letter.idempotencyKey))"] }
    }
}

/// `surveyctl purge`: erases from disk now every answer no longer needed.
struct Purge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Erase from disk now every answer no longer needed: delivered submissions' bodies, closed sessions' answers, kept copies of damaged bytes.",
        discussion: "Without it, surveyd erases them erasureDelaySeconds after they are no longer needed.")

    @OptionGroup var daemon: DaemonOptions

    func run() async throws {
        let reply = try await request { () async throws(ControlClientError) in try await daemon.client.purge() }
        daemon.output(reply) {
            var lines = ["queue on disk: \(reply.bytesBefore) bytes before, \(reply.bytesAfter) after; \(reply.removedSegments) segment(s) removed, \(reply.carried) record(s) carried"]
            if let sessions = reply.erasedSessions { lines.append("sessions: answers of \(sessions) closed session(s) erased") }
            if let copies = reply.removedKeptCopies, copies > 0 { lines.append("kept copies of damaged bytes removed: \(copies)") }
            return lines
        }
    }
}

extension QueueExportState: EnumerableFlag {}

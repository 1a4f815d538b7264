import ArgumentParser
import ControlAPI
import Foundation

/// `surveyctl`: the operator's command line for surveyd.
@main
struct SurveyCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "surveyctl",
        abstract: "Operate surveyd and check survey definitions.",
        discussion: """
            Exit codes: 0 success; 1 failure; 64 usage error; 65 bad data (definition errors, \
            a rejected answer); 66 an input file cannot be read; 69 the daemon is unavailable; \
            74 a journal of the daemon cannot write (status, health; answers are refused meanwhile); \
            75 temporary failure (e.g. flush timed out while offline; status and health while the \
            daemon is starting or stopping); 73 a file cannot be written (staff-pin set).
            """,
        version: ProductVersion.current,
        subcommands: [Start.self, Answer.self, Status.self, Health.self, Flush.self, Dead.self, Requeue.self, QueueCommand.self, Purge.self, Lint.self, Watch.self, Resume.self, KioskCommand.self, StaffPinCommand.self, Version.self]
    )
}

/// Options every daemon command takes.
struct DaemonOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The daemon's control socket (or SURVEYD_SOCKET).", valueName: "path"))
    var socket: String?

    @Flag(name: .long, help: "Print the daemon's JSON reply instead of text.")
    var json = false

    var client: ControlClient {
        let environment = ProcessInfo.processInfo.environment
        let path = socket ?? environment["SURVEYD_SOCKET"] ?? ControlDefaults.socketPath(environment: environment, userID: getuid())
        return ControlClient(socketPath: path)
    }

    func output<T: Encodable>(_ value: T, text: () -> [String]) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            print(String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self))
        } else {
            print(text().joined(separator: "\n"))
        }
    }
}

/// Runs a daemon request, mapping its failure to a message on stderr and the documented exit code.
func request<T>(_ body: () async throws(ControlClientError) -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        printError("surveyctl: \(error.message)")
        // An error about the session's progress (question_changed) shows where it stands now.
        if let session = error.session { printError(Rendering.session(session).joined(separator: "\n")) }
        switch error.kind {
        case .daemonUnavailable: throw ExitCode(69)
        case .usage: throw ExitCode(64)
        case .api(let status, _) where status == 503: throw ExitCode(75)
        case .api(let status, _) where status == 400 || status == 404 || status == 409 || status == 422: throw ExitCode(65)
        case .api, .protocolError: throw ExitCode.failure
        }
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

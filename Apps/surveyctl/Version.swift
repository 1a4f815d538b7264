import ArgumentParser
import ControlAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `surveyctl version`: this client's version and the daemon's, as `docker version` shows both.
struct Version: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show surveyctl's version and the version of the daemon it talks to.",
        discussion: "Prints the client's version even when no daemon answers; then exits 69.")

    @OptionGroup var daemon: DaemonOptions

    struct Versions: Encodable {
        var client: String
        var daemon: String?
    }

    func run() async throws {
        let client = ProductVersion.current
        let status: StatusView
        do {
            status = try await daemon.client.status()
        } catch {
            daemon.output(Versions(client: client, daemon: nil)) { ["surveyctl \(client)"] }
            printError("surveyctl version: no daemon version: \(error.message)")
            throw ExitCode(69)
        }
        daemon.output(Versions(client: client, daemon: status.version)) {
            var lines = ["surveyctl \(client)", "surveyd   \(status.version) (up \(Rendering.duration(status.uptimeSeconds)))"]
            if status.version != client { lines.append("note: the versions differ; use the surveyctl built with this surveyd") }
            return lines
        }
    }
}

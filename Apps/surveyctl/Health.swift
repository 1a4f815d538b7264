import ArgumentParser
import ControlAPI

struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Say whether the daemon is ready to take answers.",
        discussion: """
            Ready: its control socket listens, it is not stopping, and its journals can write. \
            Exits 0 when ready, 74 while a journal cannot write, 75 when it is not ready for \
            another reason (starting or stopping), 69 when no daemon answers.
            """)

    @OptionGroup var daemon: DaemonOptions

    func run() async throws {
        let health = try await request { () async throws(ControlClientError) in try await daemon.client.health() }
        daemon.output(health) { Rendering.health(health) }
        if !health.ready { throw ExitCode(health.journalFailed ? 74 : 75) }
    }
}

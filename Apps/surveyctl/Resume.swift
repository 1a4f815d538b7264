import ArgumentParser
import ControlAPI

/// `surveyctl resume`: ends a pause of delivery after the server refused the token.
struct Resume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Resume delivery paused because the server refused the token.",
        discussion: "Delivery also resumes by itself when the token file changes, and on SIGHUP (systemctl reload surveyd).")

    @OptionGroup var daemon: DaemonOptions

    func run() async throws {
        let reply = try await request { () async throws(ControlClientError) in try await daemon.client.resume() }
        daemon.output(reply) {
            guard let paused = reply.paused else { return ["delivery was not paused"] }
            return ["delivery resumed (paused since \(paused.since): \(paused.reason))"]
        }
    }
}

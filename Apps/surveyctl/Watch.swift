import ArgumentParser
import ControlAPI
import Foundation

/// `surveyctl watch`: what the daemon does, as it happens (`GET /v1/events`).
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the daemon's events as they happen: sessions, answers (never their contents), stages queued, deliveries, retries, dead letters, connectivity.",
        discussion: """
            One line per event (with --json, the event's JSON line as the daemon sends it). Ends \
            after --count events, after --timeout seconds, when the daemon stops, or on Ctrl-C; \
            exits 0 in each case.
            """)

    @Option(help: "Stop after this many events (the first line, hello, not counted).")
    var count: Int?

    @Option(help: "Stop after this many seconds (at most 31536000, one year).")
    var timeout: Double = 31_536_000

    @OptionGroup var daemon: DaemonOptions

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1, not \(count)") }
        guard timeout.isFinite, timeout > 0, timeout <= 31_536_000 else {
            throw ValidationError("--timeout must be a number of seconds above 0 and at most 31536000 (one year), not \(timeout)")
        }
    }

    func run() async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var seen = 0
        let limit = count
        let json = daemon.json
        let end = try await request { () async throws(ControlClientError) in
            try await daemon.client.watchEvents(for: .milliseconds(Int64((timeout * 1000).rounded(.up)))) { event in
                // Written at once (not through print's buffer), so a pipe sees each event as it comes.
                let text = json ? String(decoding: (try? encoder.encode(event)) ?? Data(), as: UTF8.self) : event.line
                FileHandle.standardOutput.write(Data((text + "\n").utf8))
                guard event.type != .hello else { return true }
                seen += 1
                return limit.map { seen < $0 } ?? true
            }
        }
        if end == .daemonStopped { printError("surveyctl watch: the daemon stopped") }
    }
}

// Serves the kiosk pages over the in-memory survey (KioskTesting) on loopback, for the browser
// test and for looking at the pages: prints "KIOSK_URL http://127.0.0.1:PORT/" once listening.
// It stops by itself after --deadline seconds, or on SIGINT/SIGTERM.
import ArgumentParser
import Foundation
import Hummingbird
import Kiosk
import KioskTesting
import Logging

@main
struct KioskPreview: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the kiosk pages over the project's survey in memory.")

    @Option(help: "The loopback address to bind.")
    var host = "127.0.0.1"

    @Option(help: "The port (0: any free port).")
    var port = 0

    @Option(help: "Seconds of inactivity on a question before \"Are you still there?\".")
    var idleSeconds = 120

    @Option(help: "Seconds the idle overlay counts down.")
    var idleCountdownSeconds = 20

    @Option(help: "Seconds an end screen stays.")
    var endScreenSeconds = 10

    @Flag(help: "Behave as a daemon whose survey server is unreachable: completed stages end as saved.")
    var offline = false

    @Option(help: "Stop after this many seconds.")
    var deadline = 600

    func validate() throws {
        guard ["127.0.0.1", "::1", "localhost"].contains(host) else {
            throw ValidationError("--host must be a loopback address; the preview has no access control beyond the kiosk's own")
        }
    }

    func run() async throws {
        var logger = Logger(label: "kiosk-preview")
        logger.logLevel = .notice
        let backend = try SurveyKioskBackend()
        await backend.setOnline(!offline)
        let settings = KioskSettings(
            titles: [.ko: "음료 설문조사", .en: "Drinks survey"],
            endScreenSeconds: endScreenSeconds,
            idleSeconds: idleSeconds,
            idleCountdownSeconds: idleCountdownSeconds
        )
        let host = host
        let app = try KioskApplication.application(
            backend: backend,
            settings: settings,
            address: .hostname(host, port: port),
            logger: logger,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let shown = host.contains(":") ? "[\(host)]" : host
                FileHandle.standardOutput.write(Data("KIOSK_URL http://\(shown):\(port)/\n".utf8))
            }
        )
        let limit = deadline
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            group.addTask {
                try await Task.sleep(for: .seconds(limit))
                FileHandle.standardError.write(Data("kiosk-preview: deadline of \(limit) s reached, stopping\n".utf8))
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }
}

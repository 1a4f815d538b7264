import ArgumentParser
import ControlAPI

/// `surveyctl kiosk out-of-service|in-service`.
struct KioskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: "Take the kiosk out of service or put it back.",
        discussion: "While out of service the kiosk's screen says so and no kiosk session starts; sessions started through the control API (surveyctl start) still do. It lasts across restarts until ended.",
        subcommands: [OutOfService.self, InService.self])

    struct OutOfService: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "out-of-service", abstract: "Stop kiosk sessions from starting; the screen says the kiosk is out of service.")
        @Option(help: ArgumentHelp("Shown on the kiosk's screen below \"out of service\" (one line, at most 200 characters).", valueName: "text"))
        var message: String?
        @OptionGroup var daemon: DaemonOptions

        func run() async throws {
            let view = try await request { () async throws(ControlClientError) in try await daemon.client.setOutOfService(OutOfServiceRequest(message: message)) }
            daemon.output(view) { view.lines }
        }
    }

    struct InService: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "in-service", abstract: "Put the kiosk back in service.")
        @OptionGroup var daemon: DaemonOptions

        func run() async throws {
            let view = try await request { () async throws(ControlClientError) in try await daemon.client.setInService() }
            daemon.output(view) { view.lines }
        }
    }
}

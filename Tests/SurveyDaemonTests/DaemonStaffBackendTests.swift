import ControlAPI
import Foundation
import Kiosk
import Logging
import MockServer
import SurveyTesting
import Synchronization
import Testing
@testable import SurveyDaemon

/// The staff screen's backend in a whole daemon over the mock survey server: a listed survey
/// whose questionnaire cannot be loaded is refused with why; the kiosk's next respondent starts
/// the chosen survey while the control API keeps `firstStage`; out of service refuses kiosk
/// starts only; the glance and Send now read the daemon's own status.
@Suite(.timeLimit(.minutes(5))) struct DaemonStaffBackendTests {
    @Test func switchOutOfServiceGlanceAndSendNowOverTheDaemon() async throws {
        let dir = try TemporaryDirectory(prefix: "dsb")
        defer { dir.remove() }
        var quiet = Logger(label: "staff")
        quiet.logLevel = .critical
        let mock = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: PackagePaths.mock), logger: quiet)
        let configuration = try await InProcessDaemon.configuration(in: dir, serverURL: "http://127.0.0.1:\(mock.port)") { flags in
            flags[\.kioskListen] = "127.0.0.1:0"
            flags[\.kioskSurveys] = "common=Drinks survey,2=Second survey,nosuch=Missing survey"
        }
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: quiet)
        do {
            let desk = try #require(daemon.backend.staffDesk)
            let staff = DaemonStaffBackend(desk: desk, control: daemon.backend, languages: [.en], stateDirectory: configuration.stateDirectory)
            await #expect {
                try await staff.chooseSurvey("nosuch")
            } throws: { error in
                "\(error)".contains("The survey nosuch cannot be used now (") && "\(error)".contains("the kiosk keeps its survey. Call the administrator.")
            }
            #expect(desk.survey?.stage == "common")
            await #expect(throws: KioskStaffError.self) { try await staff.chooseSurvey("other") }

            try await staff.chooseSurvey("2")
            let kiosk = SessionKioskBackend(sessions: daemon.sessions, staff: desk)
            let started = try await kiosk.start(language: .en)
            #expect(try await daemon.backend.session(id: started.session.rawValue).stage == "2")
            #expect(try await daemon.backend.startSession(StartSessionRequest(lang: "en")).stage == "common")

            try await desk.setOutOfService(message: "Cleaning", by: .operator)
            await #expect(throws: KioskError.self) { try await kiosk.start(language: .en) }
            #expect(try await daemon.backend.startSession(StartSessionRequest(lang: "en")).stage == "common")
            let status = try await daemon.backend.status()
            #expect(status.kiosk?.state == "out_of_service")
            #expect(Rendering.status(status).contains { $0.hasPrefix("kiosk: OUT OF SERVICE since ") && $0.contains("\"Cleaning\"") })
            #expect(await daemon.backend.health().kiosk == "out_of_service")
            #expect(String(decoding: try await daemon.backend.metrics(), as: UTF8.self).contains("surveyd_kiosk_out_of_service 1"))

            let glance = await staff.glance()
            #expect(glance.availability == .outOfService(message: "Cleaning"))
            #expect(glance.survey?.stage == "2")
            #expect(glance.surveys.map(\.stage) == ["common", "2", "nosuch"])
            #expect(glance.version == "test")
            #expect((glance.diskFreeBytes ?? 0) > 0)
            let sent = await staff.sendNow()
            #expect(sent.waiting == 0 && sent.sent == 0)
        } catch {
            await daemon.close()
            try await mock.stop()
            throw error
        }
        await daemon.close()
        try await mock.stop()
    }
}

/// SIGHUP and the staff screen: the PIN file is read again (a file that cannot be used keeps the
/// PIN in use, logged), and a new `kioskSurveys` keeps a choice still listed, drops one that is not.
@Suite(.timeLimit(.minutes(5))) struct StaffReloadTests {
    @Test func aReloadReadsThePinFileAgainAndAppliesTheSurveyList() async throws {
        let dir = try TemporaryDirectory(prefix: "srl")
        defer { dir.remove() }
        let pin = dir.appending("staff-pin").path
        try StaffPinHash(pin: "1357", iterations: StaffPinTests.quick).write(to: pin)
        let configuration = try await InProcessDaemon.configuration(in: dir) { flags in
            flags[\.kioskListen] = "127.0.0.1:0"
            flags[\.kioskStaffPinFile] = pin
            flags[\.kioskSurveys] = "common=Drinks,2=Second"
        }
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
        let desk = try #require(daemon.backend.staffDesk)
        try await desk.chooseSurvey("2", by: .staff)
        let log = CapturedLog()
        let next = Mutex(configuration)
        let reloader = ConfigurationReloader(current: configuration, daemon: daemon, logLevel: DaemonLogLevel(.info), logger: log.logger) { () async throws(ConfigurationError) in
            next.withLock { $0 }
        }
        // A new PIN in the same file: the old one no longer opens the staff screen.
        try StaffPinHash(pin: "2468", iterations: StaffPinTests.quick).write(to: pin)
        _ = await reloader.reload()
        #expect(await desk.verify(pin: "2468") == .accepted)
        #expect(await desk.verify(pin: "1357") == .wrong(attemptsLeft: 4))
        #expect(desk.survey?.stage == "2")

        // A file open to others: refused and logged, the PIN in use stays; a list without the choice drops it.
        chmod(pin, 0o644)
        next.withLock { $0.kioskSurveys = "common=Drinks,1=First" }
        let changes = await reloader.reload()
        #expect(changes?.applied == ["kioskSurveys"])
        #expect(await desk.verify(pin: "2468") == .accepted)
        #expect(log.contains(.error, "kiosk staff PIN not reloaded: the staff PIN file \(pin) is open to group or others (mode 644)"))
        #expect(desk.survey?.stage == "common")
        await daemon.close()
    }
}

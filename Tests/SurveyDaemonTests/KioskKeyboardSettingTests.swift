import Foundation
import Kiosk
import SurveyTesting
import Testing

@testable import SurveyDaemon

/// `kioskKeyboard`: the pages' own keyboard unless the configuration says `system`, from each
/// source, passed on to the pages; any other value is refused naming the choices.
@Suite(.timeLimit(.minutes(5))) struct KioskKeyboardSettingTests {
    @Test func onscreenByDefaultAndSystemFromEachSource() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let byDefault = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h"], userID: 1)
        #expect(byDefault.kioskKeyboard == .onscreen)
        #expect(KioskServer.settings(from: byDefault).keyboard == .onscreen)

        let file = dir.appending("surveyd.json")
        try Data(#"{"kioskKeyboard":"system"}"#.utf8).write(to: file)
        let fromFile = try await DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h"], userID: 1)
        #expect(fromFile.kioskKeyboard == .system)
        #expect(KioskServer.settings(from: fromFile).keyboard == .system)

        let fromEnvironment = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h", "SURVEYD_KIOSK_KEYBOARD": "system"], userID: 1)
        #expect(fromEnvironment.kioskKeyboard == .system)

        var flags = DaemonConfiguration.Overrides()
        flags[\.kioskKeyboard] = .onscreen
        let fromFlag = try await DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h", "SURVEYD_KIOSK_KEYBOARD": "system"], flags: flags, userID: 1)
        #expect(fromFlag.kioskKeyboard == .onscreen)
    }

    @Test func anyOtherKeyboardIsRefusedNamingTheChoices() async throws {
        do {
            _ = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h", "SURVEYD_KIOSK_KEYBOARD": "virtual"], userID: 1)
            Issue.record("kioskKeyboard virtual was accepted")
        } catch {
            #expect("\(error)" == #"surveyd configuration: environment variable SURVEYD_KIOSK_KEYBOARD: "virtual" is not onscreen or system"#)
        }
    }
}

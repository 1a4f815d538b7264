import Foundation
import Kiosk
import SurveyTesting
import Testing

@testable import SurveyDaemon

/// `kioskStaffPinOverPlainHTTP`: the staff screen is for a browser on the kiosk itself unless
/// the operator allows other machines, from each source, passed on to the pages; any other value
/// is refused naming the choices.
@Suite(.timeLimit(.minutes(5))) struct KioskStaffPinOverPlainHTTPTests {
    @Test func onlyThisMachineByDefaultAndAnyClientWhenAllowedFromEachSource() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let byDefault = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h"], userID: 1)
        #expect(byDefault.kioskStaffPinOverPlainHTTP == .refuse)
        #expect(KioskServer.settings(from: byDefault).staffAccess == .loopbackOnly)

        let network = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h", "SURVEYD_KIOSK_ACCESS": "network", "SURVEYD_KIOSK_LISTEN": "0.0.0.0:0"], userID: 1)
        #expect(KioskServer.settings(from: network).staffAccess == .loopbackOnly)

        let file = dir.appending("surveyd.json")
        try Data(#"{"kioskStaffPinOverPlainHTTP":"allow"}"#.utf8).write(to: file)
        let fromFile = try await DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h"], userID: 1)
        #expect(fromFile.kioskStaffPinOverPlainHTTP == .allow)
        #expect(KioskServer.settings(from: fromFile).staffAccess == .anyClient)

        let fromEnvironment = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h", "SURVEYD_KIOSK_STAFF_PIN_OVER_PLAIN_HTTP": "allow"], userID: 1)
        #expect(fromEnvironment.kioskStaffPinOverPlainHTTP == .allow)

        var flags = DaemonConfiguration.Overrides()
        flags[\.kioskStaffPinOverPlainHTTP] = .refuse
        let fromFlag = try await DaemonConfiguration.resolve(file: file.path, environment: ["HOME": "/h", "SURVEYD_KIOSK_STAFF_PIN_OVER_PLAIN_HTTP": "allow"], flags: flags, userID: 1)
        #expect(fromFlag.kioskStaffPinOverPlainHTTP == .refuse)
        #expect(KioskServer.settings(from: fromFlag).staffAccess == .loopbackOnly)
    }

    @Test func anyOtherValueIsRefusedNamingTheChoices() async throws {
        do {
            _ = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h", "SURVEYD_KIOSK_STAFF_PIN_OVER_PLAIN_HTTP": "yes"], userID: 1)
            Issue.record("kioskStaffPinOverPlainHTTP yes was accepted")
        } catch {
            #expect("\(error)" == #"surveyd configuration: environment variable SURVEYD_KIOSK_STAFF_PIN_OVER_PLAIN_HTTP: "yes" is not refuse or allow"#)
        }
    }
}

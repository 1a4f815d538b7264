#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// The staff PIN and out of service on the built binaries: `surveyctl staff-pin set` and its
/// refusals, surveyd's exit 78 for a PIN file it cannot use, out of service through `surveyctl`
/// as the kiosk's screen, `status`, `health` and the metrics show it across a restart, the
/// lockout after wrong PINs cleared by `surveyctl staff-pin unlock`, and the staff screen of
/// pages served to the network: refused to other machines (their PINs never counted) unless
/// `kioskStaffPinOverPlainHTTP` allows them.
@Suite(.serialized, .timeLimit(.minutes(10))) struct KioskStaffEndToEndTests {
    static let surveyctl = PackagePaths.executable("surveyctl")
    static let surveyd = PackagePaths.executable("surveyd")

    static func setPin(_ file: String, stdin: String) async throws -> ProcessResult {
        try await runProcess(surveyctl, ["staff-pin", "set", "--file", file, "--iterations", "210000"], stdin: stdin, deadline: .seconds(60))
    }

    @Test func staffPinSetWritesAnOwnerOnlyHashAndRefusesABadPin() async throws {
        let dir = try TemporaryDirectory(prefix: "pinset")
        defer { dir.remove() }
        let file = dir.appending("staff-pin").path
        let short = try await Self.setPin(file, stdin: "12\n12\n")
        #expect(short.status == 65 && short.stderr.contains("the PIN has 2 digits; give 4 to 12"), "\(short.stderr)")
        let differ = try await Self.setPin(file, stdin: "2468\n2469\n")
        #expect(differ.status == 65 && differ.stderr.contains("the two PINs differ; nothing was written"), "\(differ.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file))
        let good = try await Self.setPin(file, stdin: "2468\n2468\n")
        #expect(good.status == 0, "\(good.stderr)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix("surveyd-staff-pin 1 pbkdf2-sha256 210000 "))
        #expect(!text.contains("2468"))
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)

        chmod(file, 0o640)
        let base = ["--state-dir", dir.appending("state").path, "--socket", dir.appending("d.sock").path, "--server-url", "http://127.0.0.1:9",
                    "--kiosk-listen", "127.0.0.1:0", "--kiosk-staff-pin-file", file]
        for extra in [[], ["--check-config"]] {
            let refused = try await runProcess(Self.surveyd, base + extra, environment: ["HOME": dir.path], deadline: .seconds(30))
            #expect(refused.status == 78, "\(extra): \(refused.stderr)")
            #expect(refused.stderr.contains("kioskStaffPinFile: the staff PIN file \(file) is open to group or others (mode 640); make it owner-only: chmod 600 \(file)"), "\(refused.stderr)")
        }
    }

    @Test func outOfServiceIsShownEverywhereAndSurvivesARestart() async throws {
        try await Stack.with(check)
    }

    func check(_ stack: Stack) async throws {
        try await stack.startMock()
        let pin = stack.dir.appending("staff-pin").path
        #expect(try await Self.setPin(pin, stdin: "2468\n2468\n").status == 0)
        let flags = ["--kiosk-listen", "127.0.0.1:0", "--kiosk-title-en", "Drinks survey", "--kiosk-staff-pin-file", pin, "--kiosk-surveys", "common=Drinks survey"]
        var daemon = try await stack.startDaemon(flags)
        var browser = KioskBrandEndToEndTests.Browser(port: try await KioskBrandEndToEndTests.port(of: daemon))
        #expect(try await browser.open("/").bodyText.contains("data-staff-hold=\"/staff\""))

        let out = try await stack.ctl(["kiosk", "out-of-service", "--message", "Back at 14:00"])
        #expect(out.status == 0 && out.stdout.contains("kiosk: OUT OF SERVICE since"), "\(out.stdout)\(out.stderr)")
        let screen = try await browser.open("/?lang=en")
        #expect(screen.bodyText.contains("This kiosk is out of service") && screen.bodyText.contains("Back at 14:00"))
        // The control API's own sessions still start.
        #expect(try await stack.ctl(["start", "--lang", "en"]).status == 0)
        let health = try await stack.json(["health"])
        #expect(health["kiosk"] as? String == "out_of_service")
        let metrics = try await stack.ctl(["health"])
        #expect(metrics.stdout.contains("kiosk: out of service"), "\(metrics.stdout)")

        _ = await daemon.stop()
        stack.daemon = nil
        daemon = try await stack.startDaemon(flags)
        browser = KioskBrandEndToEndTests.Browser(port: try await KioskBrandEndToEndTests.port(of: daemon))
        #expect(try await browser.open("/?lang=en").bodyText.contains("This kiosk is out of service"))
        let kiosk = try #require(try await stack.status()["kiosk"] as? [String: Any])
        #expect(kiosk["state"] as? String == "out_of_service")
        #expect((kiosk["outOfService"] as? [String: Any])?["message"] as? String == "Back at 14:00")
        #expect(try await stack.ctl(["kiosk", "in-service"]).stdout.contains("kiosk: in service; survey common"))
        #expect(try await browser.open("/?lang=en").bodyText.contains("start-form"))

        // Five wrong PINs lock the staff screen; status shows it; unlock opens it.
        _ = try await browser.open("/staff")
        for _ in 1...5 {
            let reply = try await browser.post("/staff/pin", "csrf=\(browser.csrf)&pin=1111")
            #expect(reply.status == 303)
        }
        let locked = try await browser.open("/staff")
        #expect(locked.bodyText.contains("the staff screen is locked for 5 more minutes"), "\(locked.bodyText)")
        #expect(try await stack.ctl(["status"]).stdout.contains("staff screen: LOCKED after wrong PINs until"))
        let unlock = try await stack.ctl(["staff-pin", "unlock"])
        #expect(unlock.status == 0 && unlock.stdout.contains("staff PIN unlocked") && unlock.stdout.contains("staff screen: on"), "\(unlock.stdout)")
        let entered = try await browser.post("/staff/pin", "csrf=\(browser.csrf)&pin=2468")
        #expect(entered.status == 303)
        #expect(entered.headers["set-cookie"]?.hasPrefix("kiosk-staff=") == true, "\(entered.headers)")
        #expect(try await browser.open("/staff").bodyText.contains("Send now"))
    }

    /// Pages on every address of the machine (`kioskAccess network`): a browser reaching them
    /// through the machine's network address is another machine as far as surveyd can tell.
    @Test func theStaffScreenOfPagesServedToTheNetworkIsForThisMachineOnly() async throws {
        let address = try #require(
            RawSocket.nonLoopbackIPv4Address(),
            "this test needs an IPv4 address of this machine's that is not loopback, to be a client on the network")
        try await Stack.with { stack in
            try await stack.startMock()
            let pin = stack.dir.appending("staff-pin").path
            #expect(try await Self.setPin(pin, stdin: "2468\n2468\n").status == 0)
            let flags = ["--kiosk-listen", "0.0.0.0:0", "--kiosk-access", "network", "--kiosk-title-en", "Drinks survey", "--kiosk-staff-pin-file", pin]
            var daemon = try await stack.startDaemon(flags)
            #expect(try await daemon.waitForLine(containing: "kiosk staff screen only for a browser on this machine", onStandardError: true).contains("kioskStaffPinOverPlainHTTP allow"))
            let port = try await KioskBrandEndToEndTests.port(of: daemon)

            var remote = KioskBrandEndToEndTests.Browser(host: address, port: port)
            #expect(try await remote.open("/?lang=en").status == 200)
            let refused = try await remote.open("/staff")
            #expect(refused.status == 403, "\(refused.bodyText)")
            #expect(refused.bodyText.contains("The staff screen works only on the kiosk itself"), "\(refused.bodyText)")
            #expect(!refused.bodyText.contains("name=\"pin\""))
            // Wrong PINs from the network are refused before they count: no lockout.
            for _ in 1...6 {
                #expect(try await remote.post("/staff/pin", "csrf=\(remote.csrf)&pin=1111").status == 403)
            }
            #expect(try await remote.post("/staff/pin", "csrf=\(remote.csrf)&pin=2468").status == 403)
            let status = try await stack.ctl(["status"])
            #expect(!status.stdout.contains("LOCKED"), "\(status.stdout)")
            #expect(status.stdout.contains("staff screen: on") && !status.stdout.contains("wrong PIN"), "\(status.stdout)")

            // A browser on the kiosk itself enters, with a staff cookie of its own.
            var local = KioskBrandEndToEndTests.Browser(port: port)
            _ = try await local.open("/?lang=en")
            #expect(try await local.open("/staff").bodyText.contains("name=\"pin\""))
            let entered = try await local.post("/staff/pin", "csrf=\(local.csrf)&pin=2468")
            #expect(entered.status == 303)
            #expect(try await local.open("/staff").bodyText.contains("Send now"))
            // The remote browser, given the local one's respondent cookie, still gets the refusal.
            remote.cookies = local.cookies.filter { $0.key == "kiosk" }
            #expect(try await remote.open("/staff").status == 403)

            // The operator accepts the risk: other machines get the PIN pad.
            _ = await daemon.stop()
            stack.daemon = nil
            daemon = try await stack.startDaemon(flags + ["--kiosk-staff-pin-over-plain-http", "allow"])
            #expect(try await daemon.waitForLine(containing: "kiosk staff screen open to other machines over plain HTTP", onStandardError: true).contains("TLS proxy"))
            var allowed = KioskBrandEndToEndTests.Browser(host: address, port: try await KioskBrandEndToEndTests.port(of: daemon))
            _ = try await allowed.open("/?lang=en")
            #expect(try await allowed.open("/staff").bodyText.contains("name=\"pin\""))
            #expect(try await allowed.post("/staff/pin", "csrf=\(allowed.csrf)&pin=2468").status == 303)
            #expect(try await allowed.open("/staff").bodyText.contains("Send now"))
        }
    }
}

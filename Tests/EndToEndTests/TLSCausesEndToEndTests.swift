import Foundation
import SurveyTesting
import Testing

/// A real surveyd whose `https` server presents a certificate that is not valid yet (a clock that
/// was never set) or that expired: the cause is named in `surveyctl status`, `/v1/health`, the
/// log and the connectivity state metric, and no respondent is told of a captive portal. The
/// server is `openssl s_server -www` on loopback (it never reads its input), with a certificate a test authority signs with the
/// chosen dates.
@Suite(.serialized, .timeLimit(.minutes(5)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "openssl makes the certificate and serves it"))
struct TLSCausesEndToEndTests {
    static let cases: [(String, String, String, String, String)] = [
        ("20990101000000Z", "20990201000000Z", "clock_not_set", "clock is not set", "the wall clock is not set"),
        ("20200101000000Z", "20200201000000Z", "certificate_expired", "certificate expired", "the survey server's certificate expired"),
    ]

    static func openssl(_ arguments: [String], in directory: String) async throws {
        let made = try await runProcess(URL(fileURLWithPath: "/usr/bin/openssl"), arguments, currentDirectory: URL(fileURLWithPath: directory), deadline: .seconds(60))
        try #require(made.status == 0, "openssl \(arguments.joined(separator: " ")): \(made.stderr)")
    }

    /// A certificate for 127.0.0.1 valid from `start` to `end`, signed by a test authority.
    static func certificate(in dir: String, start: String, end: String) async throws {
        try "".write(toFile: dir + "/index.txt", atomically: true, encoding: .utf8)
        try "01\n".write(toFile: dir + "/serial", atomically: true, encoding: .utf8)
        try "[ca]\ndefault_ca = test\n[test]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial\ndefault_md = sha256\npolicy = any\n[any]\ncommonName = supplied\n".write(toFile: dir + "/ca.cnf", atomically: true, encoding: .utf8)
        try "[leaf]\nsubjectAltName = IP:127.0.0.1\n".write(toFile: dir + "/leaf.ext", atomically: true, encoding: .utf8)
        try await openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650", "-subj", "/CN=surveyd test authority", "-keyout", "ca.key", "-out", "ca.pem"], in: dir)
        try await openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "leaf.key", "-out", "leaf.csr"], in: dir)
        try await openssl(["ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-in", "leaf.csr", "-out", "leaf.pem", "-notext", "-extfile", "leaf.ext", "-extensions", "leaf", "-startdate", start, "-enddate", end], in: dir)
    }

    @Test(arguments: cases)
    func theCauseIsNamedWhereTheOperatorLooks(start: String, end: String, state: String, advice: String, logLine: String) async throws {
        let stack = try Stack()
        let certificates = stack.dir.path + "/tls"
        try FileManager.default.createDirectory(atPath: certificates, withIntermediateDirectories: true)
        try await Self.certificate(in: certificates, start: start, end: end)
        let server = try await BackgroundProcess.start(URL(fileURLWithPath: "/usr/bin/openssl"), ["s_server", "-accept", "127.0.0.1:0", "-cert", certificates + "/leaf.pem", "-key", certificates + "/leaf.key", "-www"], deadline: stack.deadline)
        stack.others.append(server)
        let accept = try await server.waitForLine(containing: "ACCEPT")
        let port = try #require(Int(accept.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? ""), "\(accept)")
        let daemon = try await BackgroundProcess.start(
            stack.daemonBinary, ["--server-url", "https://127.0.0.1:\(port)", "--socket", stack.socket, "--state-dir", stack.state],
            deadline: stack.deadline)
        _ = try await daemon.waitForLine(containing: "surveyd ready", onStandardError: true)
        stack.daemon = daemon

        let started = try await UnixHTTP.request(socket: stack.socket, method: "POST", target: "/v1/sessions", body: #"{"lang": "en"}"#)
        #expect(started.status == 503 && started.bodyText.contains("definition_unavailable") && started.bodyText.contains("certificate"), "\(started.status) \(started.bodyText)")
        #expect(!started.bodyText.contains("captive portal"), "\(started.bodyText)")

        var status: [String: Any] = [:]
        #expect(try await stack.waitFor("connectivity \(state)") {
            status = try await stack.status()
            return (status["connectivity"] as? [String: Any])?["state"] as? String == state
        }, "\(status)")
        let connectivity = try #require(status["connectivity"] as? [String: Any])
        let seen = try #require(connectivity["portal"] as? [String: Any], "\(connectivity)")
        #expect((seen["advice"] as? String)?.contains(advice) == true, "\(seen)")
        #expect((seen["answer"] as? String)?.contains("the certificate is valid from") == true, "\(seen)")
        let text = try await stack.ctl(["status"])
        #expect(text.stdout.contains("connectivity: \(state)") && text.stdout.contains(advice), "\(text.stdout)")
        #expect(!text.stdout.contains("Wi-Fi login page"), "\(text.stdout)")
        let health = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/v1/health")
        #expect(health.bodyText.contains("\"\(state)\""), "\(health.bodyText)")
        let metrics = try await UnixHTTP.request(socket: stack.socket, method: "GET", target: "/metrics")
        #expect(metrics.bodyText.contains(#"surveyd_connectivity_state{state="\#(state)"} 1"#), "\(metrics.bodyText)")
        let log = daemon.errorOutput
        #expect(log.contains(logLine), "\(log)")
        #expect(!log.contains("the network answers in the survey server's place"), "\(log)")
        await stack.finish()
    }
}

import ControlAPI
import Foundation
import Logging
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// Readiness: the control socket listens, the daemon is not stopping, every journal writes;
/// `GET /v1/health` answers 200 when ready and 503 with the reasons when not.
@Suite(.timeLimit(.minutes(5))) struct HealthTests {
    static let failedSessions = StatusView.Journal(name: "sessions", state: "failed", call: "write", cause: "ENOSPC", causeText: "No space left on device", since: "2026-11-22T09:59:30Z")
    static let okQueue = StatusView.Journal(name: "queue", state: "ok")

    @Test func readyOnlyWhileServingWithEveryJournalWriting() {
        #expect(DaemonHealth.view(phase: .serving, journals: [Self.okQueue]) == HealthView(ready: true, reasons: []))
        let starting = DaemonHealth.view(phase: .starting, journals: [Self.okQueue])
        #expect(!starting.ready && starting.reasons.map(\.code) == ["not_listening"])
        let stopping = DaemonHealth.view(phase: .stopping, journals: [Self.okQueue])
        #expect(!stopping.ready && stopping.reasons.map(\.code) == ["stopping"])
        let failed = DaemonHealth.view(phase: .serving, journals: [Self.failedSessions, Self.okQueue])
        #expect(!failed.ready && failed.journalFailed && failed.reasons.map(\.code) == ["journal_failed"])
        #expect(failed.reasons[0].message.contains("the sessions journal cannot write (write ENOSPC since 2026-11-22T09:59:30Z)"), "\(failed.reasons[0].message)")
    }

    @Test func thePhaseMovesFromStartingToServingToStopping() {
        let health = DaemonHealth()
        #expect(health.phase == .starting)
        health.serving()
        #expect(health.phase == .serving)
        health.stopping()
        health.serving()
        #expect(health.phase == .stopping)
    }

    /// A backend that is not ready: the reply is 503 with the reasons, in the same body.
    @Test func notReadyIs503WithTheReasons() async throws {
        try await withControlServer(backend: NotReadyBackend()) { path, _ in
            let reply = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/health")
            #expect(reply.status == 503)
            let health = try JSONDecoder().decode(HealthView.self, from: reply.body)
            #expect(health.live && !health.ready && health.reasons.map(\.code) == ["journal_failed"])
            // A backend without metrics says so.
            let metrics = try await UnixHTTP.request(socket: path, method: "GET", target: "/metrics")
            #expect(metrics.status == 404 && metrics.bodyText.contains("no_such_endpoint"), "\(metrics.bodyText)")
        }
    }

    /// The client reads the 503 body as the health it is, not as an error.
    @Test func theClientReadsANotReadyReply() async throws {
        try await withControlServer(backend: NotReadyBackend()) { path, _ in
            let health = try await ControlClient(socketPath: path).health()
            #expect(!health.ready && health.journalFailed)
        }
        try await withControlServer { path, _ in
            let health = try await ControlClient(socketPath: path).health()
            #expect(health.ready)
        }
    }
}

/// The fake backend, with a failed session journal.
struct NotReadyBackend: ForwardingToFake {
    let fake = FakeBackend()
    func deadLetters() async throws -> [DeadLetterView] { [] }
    func health() async -> HealthView { DaemonHealth.view(phase: .serving, journals: [HealthTests.failedSessions]) }
}

/// `metricsListen`: a loopback `HOST:PORT` only, refused otherwise with what to do.
@Suite(.timeLimit(.minutes(5))) struct MetricsListenSettingTests {
    @Test(arguments: [("127.0.0.1:9464", "127.0.0.1", 9464), ("[::1]:0", "::1", 0), ("localhost:1", "127.0.0.1", 1), ("127.1.2.3:65535", "127.1.2.3", 65535)])
    func loopbackAddressesAreTaken(text: String, host: String, port: Int) async throws {
        var flags = DaemonConfiguration.Overrides()
        flags[\.metricsListen] = text
        let configuration = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h"], flags: flags, userID: 1)
        #expect(configuration.metricsAddress == (try ListenAddress(parsing: text)))
        #expect(configuration.metricsAddress?.host == host && configuration.metricsAddress?.port == port)
    }

    @Test func unsetServesMetricsOnTheSocketOnly() async throws {
        let configuration = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h"], userID: 1)
        #expect(configuration.metricsListen == nil && configuration.metricsAddress == nil)
    }

    @Test(arguments: ["0.0.0.0:9464", "192.168.1.2:9464", "[::]:9464", "128.0.0.1:80"])
    func otherHostsAreRefused(text: String) async {
        let message = await Self.message(env: ["SURVEYD_METRICS_LISTEN": text])
        #expect(message == #"surveyd configuration: environment variable SURVEYD_METRICS_LISTEN: "\#(text)" is not a loopback address: metrics are served only on 127.0.0.1 (127.0.0.0/8), ::1 or localhost; to scrape from another host, put a proxy on this one in front of it"#)
    }

    @Test(arguments: ["9464", "127.0.0.1", "127.0.0.1:", ":9464", "127.0.0.1:70000", "127.0.0.1:-1", "127.0.0.1:94a", "::1:9464x", "example.org:9464"])
    func whatIsNotHostPortIsRefused(text: String) async throws {
        let message = try #require(await Self.message(env: ["SURVEYD_METRICS_LISTEN": text]))
        #expect(message.hasPrefix("surveyd configuration: environment variable SURVEYD_METRICS_LISTEN: "), "\(message)")
        #expect(message.contains("e.g. 127.0.0.1:8080 or [::1]:8080"), "\(message)")
    }

    static func message(env: [String: String]) async -> String? {
        do {
            _ = try await DaemonConfiguration.resolve(file: nil, environment: env.merging(["HOME": "/h"]) { a, _ in a }, userID: 1)
            return nil
        } catch {
            return "\(error)"
        }
    }
}

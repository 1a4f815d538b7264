import ControlAPI
import Foundation
import Logging
import MockServer
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// The whole daemon in process against the mock survey server: `GET /metrics` (on the control
/// socket and on the loopback TCP address of `metricsListen`) parses as the Prometheus text
/// format, and its counters move as answers are given and submissions are retried, delivered
/// and refused; `GET /v1/health` says ready.
@Suite(.timeLimit(.minutes(5))) struct MetricsTests {
    @Test func scrapesShowAnswersSessionsDeliveriesAndJournals() async throws {
        let dir = try TemporaryDirectory(prefix: "mx")
        defer { dir.remove() }
        let logger = Logger(label: "metrics")
        let mock = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: PackagePaths.mock), logger: logger)
        let configuration = try await InProcessDaemon.configuration(in: dir, serverURL: "http://127.0.0.1:\(mock.port)") { flags in
            flags[\.deliveryWaitSeconds] = 0
            flags[\.backoffBaseSeconds] = 0.01
            flags[\.backoffCapSeconds] = 0.05
            flags[\.metricsListen] = "127.0.0.1:0"
        }
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: logger)
        let (running, endpoints) = await InProcessDaemon.start(daemon)
        defer { running.cancel() }
        try #require(endpoints != nil, "the daemon stopped before it was ready")
        let socket = configuration.socketPath

        let before = try await Self.scrape(socket: socket)
        #expect(before[#"surveyd_answers_total{result="accepted"}"#] == 0)
        #expect(before["surveyd_sessions_started_total"] == 0)
        #expect(before["surveyd_ready"] == 1)
        #expect(before["surveyd_log_lines_dropped_total"] != nil)
        // What holds for the whole run: the device and version, the queue's cap (none), the erasure delay.
        let info = before.filter { $0.key.hasPrefix("surveyd_info{") }
        #expect(info.count == 1 && info.values.first == 1 && info.keys.first?.contains(#"version="test""#) == true && info.keys.first?.contains(#"device=""#) == true, "\(info)")
        #expect(before["surveyd_queue_disk_cap_bytes"] == 0)
        #expect(before["surveyd_erasure_delay_seconds"] == configuration.erasureDelaySeconds)

        // One session: a rejected answer, then the whole stage; its upload fails once (HTTP 500),
        // is retried and delivered.
        let backend = daemon.backend
        _ = try await backend.startSession(StartSessionRequest(lang: "en"))
        #expect(try await backend.answer(AnswerRequest(values: ["K"])).accepted == false)
        for words in [["Kim"], ["kim.cs@gmail.com"], ["kim.cs@gmail.com"], ["30"]] {
            #expect(try await backend.answer(AnswerRequest(values: words)).accepted)
        }
        var failing = Faults()
        failing.serverErrorShare = 1
        mock.server.setFaults(failing)
        let last = try await backend.answer(AnswerRequest(values: ["5"]))
        #expect(last.session.outcome == "queued")
        #expect(try await eventually { try await Self.scrape(socket: socket)["surveyd_submissions_retried_total"] ?? 0 >= 1 })
        mock.server.setFaults(Faults())
        #expect(try await eventually { try await Self.scrape(socket: socket)["surveyd_submissions_delivered_total"] == 1 })

        let after = try await Self.scrape(socket: socket)
        #expect(after[#"surveyd_answers_total{result="accepted"}"#] == 5)
        #expect(after[#"surveyd_answers_total{result="rejected"}"#] == 1)
        #expect(after["surveyd_sessions_started_total"] == 1)
        #expect(after[#"surveyd_sessions_closed_total{outcome="queued"}"#] == 1)
        #expect(after[#"surveyd_sessions_closed_total{outcome="thanks"}"#] == 0)
        #expect(after["surveyd_submissions_queued_total"] == 1)
        #expect(after["surveyd_delivery_latency_seconds_count"] == 1)
        #expect(after["surveyd_submissions_pending"] == 0)
        #expect(after["surveyd_submissions_oldest_pending_age_seconds"] == 0)
        // stageStarted, six answers' events, stageCompleted and closed: at least 8 records.
        #expect(after[#"surveyd_journal_appends_total{journal="sessions"}"#] ?? 0 >= 8)
        #expect(after[#"surveyd_journal_appends_total{journal="queue"}"#] ?? 0 >= 2)
        #expect(after[#"surveyd_journal_fsync_duration_seconds_count{journal="sessions"}"#] ?? 0 >= 1)
        #expect(after[#"surveyd_journal_disk_bytes{journal="sessions"}"#] ?? 0 > 0)
        #expect(after[#"surveyd_journal_failed{journal="queue"}"#] == 0)
        #expect(after[#"surveyd_definition_fetches_total{result="fetched"}"#] ?? 0 >= 1)
        #expect(after["surveyd_connectivity_changes_total"] ?? 0 >= 1)
        #expect(after[#"surveyd_connectivity_state{state="online"}"#] == 1)
        #expect(after[#"surveyd_connectivity_state{state="offline"}"#] == 0)

        // A second session, whose upload the server refuses: a dead letter.
        _ = try await backend.startSession(StartSessionRequest(lang: "en"))
        for words in [["Lee"], ["lee@example.com"], ["lee@example.com"], ["41"]] {
            #expect(try await backend.answer(AnswerRequest(values: words)).accepted)
        }
        var refusing = Faults()
        refusing.rejectShare = 1
        mock.server.setFaults(refusing)
        _ = try await backend.answer(AnswerRequest(values: ["2"]))
        #expect(try await eventually { try await Self.scrape(socket: socket)[#"surveyd_submissions_dead_total{outcome="rejected"}"#] == 1 })
        let dead = try await Self.scrape(socket: socket)
        #expect(dead["surveyd_submissions_dead"] == 1)
        #expect(dead["surveyd_sessions_started_total"] == 2)
        #expect(dead["surveyd_submissions_queued_total"] == 2)
        #expect(dead["surveyd_submissions_delivered_total"] == 1)

        // The same registry on the loopback TCP address, and health on both.
        let port = try #require(daemon.metricsPort)
        let tcp = try await LoopbackHTTP.request(port: port, method: "GET", target: "/metrics")
        #expect(tcp.status == 200 && tcp.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true, "\(tcp.headers)")
        #expect(try PrometheusText.parse(tcp.bodyText)["surveyd_sessions_started_total"] == 2)
        for reply in [
            try await UnixHTTP.request(socket: socket, method: "GET", target: "/v1/health"),
            try await LoopbackHTTP.request(port: port, method: "GET", target: "/v1/health"),
        ] {
            #expect(reply.status == 200)
            let health = try JSONDecoder().decode(HealthView.self, from: reply.body)
            #expect(health.live && health.ready && health.reasons.isEmpty)
        }
        // Nothing else of the control API is served over TCP.
        #expect(try await LoopbackHTTP.request(port: port, method: "GET", target: "/v1/status").status == 404)

        running.cancel()
        _ = await running.result
        try await mock.stop()
    }

    /// A metrics address in use stops the daemon with a message naming the address and the fix.
    @Test func aMetricsPortInUseStopsTheDaemonSayingSo() async throws {
        let dir = try TemporaryDirectory(prefix: "mp")
        defer { dir.remove() }
        let taken = try TCPListener()
        defer { taken.stop() }
        let configuration = try await InProcessDaemon.configuration(in: dir) { flags in
            flags[\.metricsListen] = "127.0.0.1:\(taken.port)"
        }
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "metrics-port"))
        do {
            try await daemon.run(signals: [])
            Issue.record("the daemon ran with its metrics port taken")
        } catch let error as DaemonStartError {
            #expect(error.message.hasPrefix("cannot serve metrics on 127.0.0.1:\(taken.port) (") && error.message.hasSuffix("free that port or give another --metrics-listen"), "\(error.message)")
        }
    }

    /// `GET /metrics` on the control socket, parsed.
    static func scrape(socket: String) async throws -> [String: Double] {
        let reply = try await UnixHTTP.request(socket: socket, method: "GET", target: "/metrics")
        guard reply.status == 200 else { throw PrometheusText.Failure(description: "GET /metrics answered \(reply.status): \(reply.bodyText)") }
        return try PrometheusText.parse(reply.bodyText)
    }
}

/// A strict reader of the Prometheus text format (version 0.0.4) as the daemon writes it: every
/// line is a `# TYPE`/`# HELP` comment or a sample `name{label="value",…} number`, and every
/// sample belongs to a family declared by a `# TYPE` line before it.
enum PrometheusText {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The samples by `name{labels}` as written.
    static func parse(_ text: String) throws -> [String: Double] {
        let sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="[^"\\\n]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"\\\n]*")*\})? (\S+)$/
        let type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/
        var families: [String: String] = [:]
        var samples: [String: Double] = [:]
        guard text.hasSuffix("\n") else { throw Failure(description: "the exposition does not end with a newline") }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if let match = line.wholeMatch(of: type) {
                families[String(match.1)] = String(match.2)
                continue
            }
            if line.hasPrefix("# HELP ") { continue }
            guard let match = line.wholeMatch(of: sample) else { throw Failure(description: "not a sample or a TYPE line: \(line)") }
            let name = String(match.1)
            let family = families[name] != nil ? name : ["_bucket", "_sum", "_count"].lazy.compactMap { suffix in
                name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : nil
            }.first { families[$0] == "histogram" }
            guard family != nil else { throw Failure(description: "\(name) has no # TYPE line before it") }
            guard let value = Double(String(match.4)) else { throw Failure(description: "not a number: \(line)") }
            samples[name + String(match.2 ?? "")] = value
        }
        return samples
    }
}

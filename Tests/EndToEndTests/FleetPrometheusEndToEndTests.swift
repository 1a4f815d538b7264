#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// The fleet's side of the metrics (`doc/prometheus/`, `doc/operations.md`, "A fleet"): the alert
/// rules pass promtool's checks and unit tests; every metric name and label the rules and the
/// dashboard use is one a real surveyd exports; and three real kiosks behind a real Prometheus
/// agent, remote-writing to a real central Prometheus, raise the right alert for the right kiosk
/// and none for the healthy one.
///
/// promtool and prometheus come from Debian's `prometheus` package, which `Tests/Prometheus/install.sh`
/// installs (run by `.ci/run` and the README's test command). Where they are missing the tests that
/// need them are skipped, saying why; under `CI=true` they run and fail instead.
@Suite(.serialized, .timeLimit(.minutes(10))) struct FleetPrometheusEndToEndTests {
    static let folder = PackagePaths.root.appending(path: "doc/prometheus")
    static let rules = folder.appending(path: "surveyd-alerts.yml")
    static let ruleTests = folder.appending(path: "surveyd-alerts.test.yml")
    static let dashboard = folder.appending(path: "surveyd-dashboard.json")
    static let agentConfig = folder.appending(path: "agent/surveyd-agent.yml")

    // MARK: promtool

    /// `promtool check rules` accepts the rule file, `promtool test rules` runs the unit tests
    /// of every rule (each fires where it must, and not where it must not), and
    /// `promtool check config --agent` accepts the agent's configuration of the drop-in.
    @Test(.requires(prometheusTools))
    func promtoolChecksTheRulesAndRunsTheirTests() async throws {
        let check = try await runProcess(PrometheusTools.promtool, ["check", "rules", Self.rules.path], deadline: .seconds(60))
        #expect(check.status == 0, "promtool check rules: \(check.stdout)\(check.stderr)")
        let test = try await runProcess(PrometheusTools.promtool, ["test", "rules", Self.ruleTests.path], currentDirectory: Self.folder, deadline: .seconds(120))
        #expect(test.status == 0, "promtool test rules: \(test.stdout)\(test.stderr)")
        let config = try await runProcess(PrometheusTools.promtool, ["check", "config", "--agent", Self.agentConfig.path], deadline: .seconds(60))
        #expect(config.status == 0, "promtool check config --agent: \(config.stdout)\(config.stderr)")
    }

    /// Every alert of the rule file has a unit test: its name appears as an `exp_alerts`
    /// `alertname` in the tests.
    @Test func everyAlertHasAUnitTest() throws {
        let rules = try String(contentsOf: Self.rules, encoding: .utf8)
        let tests = try String(contentsOf: Self.ruleTests, encoding: .utf8)
        let alerts = rules.matches(of: /- alert: (\w+)/).map { String($0.1) }
        #expect(alerts.count >= 12, "the alerts were found in \(Self.rules.path)")
        let tested = Set(tests.matches(of: /alertname: (\w+)/).map { String($0.1) })
        let untested = alerts.filter { !tested.contains($0) }
        #expect(untested.isEmpty, "no unit test names these alerts: \(untested)")
        #expect(Set(alerts).count == alerts.count, "an alert name is used twice: \(alerts)")
    }

    // MARK: Names against a real daemon

    /// Every `surveyd_…` metric in the rules and the dashboard is in a real daemon's `/metrics`
    /// (kiosk pages on, so that the staff screen's series are there too), and every label they
    /// select, group or join on is one the daemon exports or one the scrape adds (`job`,
    /// `instance`, and the `kiosk` and `site` labels of the agent's drop-in).
    @Test func everyMetricAndLabelInTheRulesAndTheDashboardIsExported() async throws {
        try await Stack.with(deadline: .seconds(120)) { stack in
            try await stack.startMock()
            let daemon = try await stack.startDaemon(["--metrics-listen", "127.0.0.1:0", "--kiosk-listen", "127.0.0.1:0"])
            let port = try await Self.metricsPort(daemon)
            let reply = try await LoopbackHTTP.request(port: port, method: "GET", target: "/metrics")
            #expect(reply.status == 200)
            let exported = Self.exportedNames(reply.bodyText)
            #expect(exported.metrics.contains("surveyd_ready") && exported.metrics.contains("surveyd_info"), "\(exported.metrics.sorted())")
            let labels = exported.labels.union(Self.scrapeLabels)

            for file in [Self.rules, Self.dashboard] {
                let text = try String(contentsOf: file, encoding: .utf8)
                let used = Self.usedNames(text)
                #expect(used.metrics.count >= 5, "metrics were found in \(file.lastPathComponent)")
                let unknownMetrics = used.metrics.subtracting(exported.metrics)
                #expect(unknownMetrics.isEmpty, "\(file.lastPathComponent) uses metrics surveyd does not export: \(unknownMetrics.sorted())")
                let unknownLabels = used.labels.subtracting(labels)
                #expect(unknownLabels.isEmpty, "\(file.lastPathComponent) uses labels surveyd does not export: \(unknownLabels.sorted())")
            }
        }
    }

    /// Labels a sample gets from Prometheus and the drop-in's scrape, not from surveyd, and the
    /// labels of Prometheus's own `ALERTS` series.
    static let scrapeLabels: Set<String> = ["job", "instance", "kiosk", "site", "alertname", "alertstate", "severity"]

    /// The metric names (histograms' `_bucket`, `_count`, `_sum` as written) and label names of
    /// an exposition.
    static func exportedNames(_ text: String) -> (metrics: Set<String>, labels: Set<String>) {
        var metrics: Set<String> = []
        var labels: Set<String> = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let match = line.prefixMatch(of: /([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?/) else { continue }
            metrics.insert(String(match.1))
            if let selector = match.2 {
                for label in selector.matches(of: /([a-zA-Z_][a-zA-Z0-9_]*)="/) { labels.insert(String(label.1)) }
            }
        }
        return (metrics, labels)
    }

    /// The `surveyd_…` metrics a rule file or a dashboard names, and the labels it selects on
    /// (`{label="…"}` after a surveyd metric), groups, joins or ignores by, or reads in a
    /// template (`$labels.name`, `{{name}}` in a legend).
    static func usedNames(_ text: String) -> (metrics: Set<String>, labels: Set<String>) {
        let metrics = Set(text.matches(of: /\bsurveyd_[a-z0-9_]+\b/).map { String($0.0) })
        var labels: Set<String> = []
        for selector in text.matches(of: /\bsurveyd_[a-z0-9_]+\{([^}]*)\}/) {
            for label in selector.1.matches(of: /([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)/) { labels.insert(String(label.1)) }
        }
        for clause in text.matches(of: /\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/) {
            for label in clause.1.split(separator: ",") {
                let name = label.trimmingCharacters(in: .whitespaces)
                if !name.isEmpty { labels.insert(name) }
            }
        }
        for template in text.matches(of: /\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)/) { labels.insert(String(template.1)) }
        for legend in text.matches(of: /"legendFormat":\s*"([^"]*)"/) {
            for name in legend.1.matches(of: /\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/) { labels.insert(String(name.1)) }
        }
        return (metrics, labels)
    }

    // MARK: Three kiosks, an agent, a central Prometheus

    /// One healthy kiosk; one whose server went down with an answer pending (offline); one
    /// whose server refused a submission for good (a dead letter). A Prometheus agent scrapes
    /// the three and remote-writes to a central Prometheus that evaluates the shipped rules with
    /// every `for:` made 2 s (but those of the rules on `up`). The central Prometheus's API shows
    /// `SurveydOffline` firing for the offline kiosk and `SurveydDeadLetters` for the other, none
    /// firing for the healthy one, whose samples did arrive, and runs every query of the dashboard.
    @Test(.requires(prometheusTools))
    func threeKiosksBehindAnAgentRaiseTheirAlertsCentrally() async throws {
        let fleet = try Fleet()
        do {
            try await fleet.run()
        } catch {
            await fleet.finish()
            throw error
        }
        await fleet.finish()
    }

    /// The port of the daemon's `serving metrics` log line.
    static func metricsPort(_ daemon: BackgroundProcess) async throws -> Int {
        let line = try await daemon.waitForLine(containing: "serving metrics", onStandardError: true)
        let match = try #require(line.firstMatch(of: /127\.0\.0\.1:(\d+)/), "no address in: \(line)")
        return try #require(Int(match.1))
    }

    /// A TCP port nobody listens on now, for a program that cannot be told to choose one and say it.
    static func freePort() throws -> Int {
        let listener = try TCPListener()
        defer { listener.stop() }
        return listener.port
    }
}

/// The three kiosks, the agent and the central Prometheus of the end-to-end test; every
/// process has a deadline and is stopped by ``finish()``.
final class Fleet: @unchecked Sendable {
    let dir: TemporaryDirectory
    let healthy: Stack
    let offline: Stack
    let dead: Stack
    var prometheus: [BackgroundProcess] = []
    let deadline: Duration = .seconds(300)

    init() throws {
        dir = try TemporaryDirectory(prefix: "fleet")
        healthy = try Stack()
        offline = try Stack()
        dead = try Stack()
        for stack in [healthy, offline, dead] { stack.deadline = deadline }
    }

    func run() async throws {
        let metricsFlags = ["--metrics-listen", "127.0.0.1:0"]
        // Healthy: a whole stage delivered.
        try await healthy.startMock()
        let healthyDaemon = try await healthy.startDaemon(metricsFlags)
        _ = try await healthy.ctl(["start", "--lang", "en"])
        try await healthy.answer(Stack.common)
        #expect(try await healthy.waitFor("the healthy kiosk's delivery") { try await self.healthy.queue()["delivered"] as? Int == 1 })

        // Offline: the server stops before the last answer, which stays pending.
        try await offline.startMock()
        let offlineDaemon = try await offline.startDaemon(metricsFlags)
        try await offline.startAndAnswerAllButLast()
        await offline.stopMock()
        _ = try await offline.ctl(["answer"] + Stack.common.last!)
        let status = try await offline.statusOnceOfflineAndIdle()
        #expect((status["queue"] as? [String: Any])?["pending"] as? Int == 1, "\(status)")

        // A dead letter: the server refuses every upload for good.
        try await dead.startMock(["--reject-share", "1"])
        let deadDaemon = try await dead.startDaemon(metricsFlags)
        _ = try await dead.ctl(["start", "--lang", "en"])
        try await dead.answer(Stack.common)
        #expect(try await dead.waitFor("the dead letter") { try await self.dead.queue()["dead"] as? Int == 1 })

        // The central Prometheus, evaluating the shipped rules with test-sized `for:`; the rules on
        // `up` keep theirs, so that one slow scrape on a loaded machine raises no alert.
        let rules = try String(contentsOf: FleetPrometheusEndToEndTests.rules, encoding: .utf8)
            .components(separatedBy: "- alert: ").enumerated()
            .map { index, block in index == 0 || block.contains("up{job=") ? block : block.replacing(/for: *[0-9smhd]+/, with: "for: 2s") }
            .joined(separator: "- alert: ")
        #expect(rules.matches(of: /for: 2s/).count >= 10, "the rules' for: were made test-sized")
        try rules.write(to: dir.appending("rules.yml"), atomically: true, encoding: .utf8)
        let centralPort = try FleetPrometheusEndToEndTests.freePort()
        try """
        global:
          evaluation_interval: 1s
        rule_files: ["\(dir.appending("rules.yml").path)"]
        """.write(to: dir.appending("central.yml"), atomically: true, encoding: .utf8)
        let central = try await BackgroundProcess.start(PrometheusTools.prometheus, [
            "--config.file=\(dir.appending("central.yml").path)", "--storage.tsdb.path=\(dir.appending("central").path)",
            "--web.listen-address=127.0.0.1:\(centralPort)", "--web.enable-remote-write-receiver",
        ], deadline: deadline)
        prometheus.append(central)
        #expect(try await Self.ready(centralPort), "the central Prometheus did not become ready: \(central.errorOutput.suffix(2000))")

        // The agent: each kiosk a target with its own `kiosk` label (on a real kiosk the drop-in's
        // external label), remote-writing to the central Prometheus.
        var targets = ""
        for (name, daemon) in [("healthy", healthyDaemon), ("offline", offlineDaemon), ("dead", deadDaemon)] {
            let port = try await FleetPrometheusEndToEndTests.metricsPort(daemon)
            targets += "      - targets: [\"127.0.0.1:\(port)\"]\n        labels: { kiosk: \(name) }\n"
        }
        let agentPort = try FleetPrometheusEndToEndTests.freePort()
        try """
        global:
          scrape_interval: 1s
          external_labels: { site: test-venue }
        scrape_configs:
          - job_name: surveyd
            static_configs:
        \(targets)
        remote_write:
          - url: http://127.0.0.1:\(centralPort)/api/v1/write
            queue_config: { batch_send_deadline: 1s }
        """.write(to: dir.appending("agent.yml"), atomically: true, encoding: .utf8)
        let agent = try await BackgroundProcess.start(PrometheusTools.prometheus, [
            "--enable-feature=agent", "--config.file=\(dir.appending("agent.yml").path)",
            "--storage.agent.path=\(dir.appending("agent").path)", "--web.listen-address=127.0.0.1:\(agentPort)",
        ], deadline: deadline)
        prometheus.append(agent)

        // The alerts, as the central Prometheus's API gives them.
        var alerts: [[String: Any]] = []
        let expected = [("SurveydOffline", "offline"), ("SurveydDeadLetters", "dead")]
        let arrived = try await eventually(timeout: .seconds(120), every: .milliseconds(500)) {
            alerts = try await Self.alerts(centralPort)
            return expected.allSatisfy { name, kiosk in
                alerts.contains { Self.label($0, "alertname") == name && Self.label($0, "kiosk") == kiosk && $0["state"] as? String == "firing" }
            }
        }
        #expect(arrived, "not every expected alert fired; alerts: \(alerts)\nagent: \(agent.errorOutput.suffix(3000))\ncentral: \(central.errorOutput.suffix(3000))")
        for alert in alerts where Self.label(alert, "kiosk") == "healthy" && alert["state"] as? String == "firing" {
            Issue.record("an alert fires for the healthy kiosk: \(alert)")
        }
        #expect(!alerts.contains { Self.label($0, "alertname") == "SurveydDeadLetters" && Self.label($0, "kiosk") != "dead" }, "\(alerts)")
        #expect(!alerts.contains { Self.label($0, "alertname") == "SurveydOffline" && Self.label($0, "kiosk") != "offline" }, "\(alerts)")
        #expect(alerts.allSatisfy { Self.label($0, "site") == "test-venue" }, "the agent's external label is on every alert: \(alerts)")
        // The healthy kiosk was heard: its absence of alerts is not an absence of data.
        let heard = try await Self.query(centralPort, #"surveyd_ready{kiosk="healthy"}"#)
        #expect(heard.count == 1, "the healthy kiosk's samples on the central Prometheus: \(heard)")

        // Every query of the dashboard runs on the central Prometheus, Grafana's variables set to
        // "All"; the fleet's dead letters add up to the one.
        let dashboard = try JSONSerialization.jsonObject(with: Data(contentsOf: FleetPrometheusEndToEndTests.dashboard)) as? [String: Any]
        let expressions = (dashboard?["panels"] as? [[String: Any]] ?? []).flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        #expect(expressions.count > 20, "the dashboard's queries were found")
        for expression in expressions {
            let query = expression.replacing("$__range", with: "1h").replacing("$site", with: ".*").replacing("$kiosk", with: ".*")
            let body = try await Self.queryBody(centralPort, query)
            #expect(body["status"] as? String == "success", "\(expression): \(body)")
        }
        let deadLetters = try await Self.query(centralPort, #"sum(surveyd_submissions_dead{site=~".*"})"#)
        #expect((deadLetters.first?["value"] as? [Any])?.last as? String == "1", "\(deadLetters)")
    }

    func finish() async {
        for process in prometheus.reversed() { _ = await process.stop() }
        for stack in [healthy, offline, dead] { await stack.finish() }
        dir.remove()
    }

    static func ready(_ port: Int) async throws -> Bool {
        try await eventually(timeout: .seconds(60), every: .milliseconds(200)) {
            (try? await LoopbackHTTP.request(port: port, method: "GET", target: "/-/ready"))?.status == 200
        }
    }

    static func alerts(_ port: Int) async throws -> [[String: Any]] {
        let reply = try await LoopbackHTTP.request(port: port, method: "GET", target: "/api/v1/alerts")
        let body = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
        return (body?["data"] as? [String: Any])?["alerts"] as? [[String: Any]] ?? []
    }

    static func query(_ port: Int, _ expression: String) async throws -> [[String: Any]] {
        (try await queryBody(port, expression)["data"] as? [String: Any])?["result"] as? [[String: Any]] ?? []
    }

    /// The API's whole answer to an instant query: `status`, and `data` or `error`.
    static func queryBody(_ port: Int, _ expression: String) async throws -> [String: Any] {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expression
        let reply = try await LoopbackHTTP.request(port: port, method: "GET", target: "/api/v1/query?query=\(encoded)")
        return try JSONSerialization.jsonObject(with: reply.body) as? [String: Any] ?? [:]
    }

    static func label(_ alert: [String: Any], _ name: String) -> String? {
        (alert["labels"] as? [String: Any])?[name] as? String
    }
}

/// Debian's `prometheus` package: the server (also the agent) and promtool.
enum PrometheusTools {
    static let prometheus = URL(fileURLWithPath: "/usr/bin/prometheus")
    static let promtool = URL(fileURLWithPath: "/usr/bin/promtool")
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// The mock survey server, surveyd and surveyctl as built binaries, in one temporary directory.
/// Every process has a deadline and is killed at the end.
final class Stack: @unchecked Sendable {
    let dir: TemporaryDirectory
    let mockBinary = PackagePaths.executable("mock-survey-server")
    let daemonBinary = PackagePaths.executable("surveyd")
    let ctlBinary = PackagePaths.executable("surveyctl")
    var mock: BackgroundProcess?
    var daemon: BackgroundProcess?
    /// Daemons started beside the main one (their own socket and state), stopped by ``finish()``.
    var others: [BackgroundProcess] = []
    var port = 0
    /// How long each process may live: a backstop for a test that never reaches ``finish()``, so
    /// longer than a test takes beside the whole suite on 2 cores and shorter than the suites'
    /// 10-minute limit. It was 120 s, and the erasure walk, longer than that there, lost its
    /// mock server to the deadline half-way; every upload after it waited in vain.
    var deadline: Duration = .seconds(540)

    init() throws { dir = try TemporaryDirectory(prefix: "e2e") }

    var record: String { dir.path + "/record.jsonl" }
    var socket: String { dir.path + "/d.sock" }
    var state: String { dir.path + "/state" }
    var serverURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the mock server (on the same port as before when restarted).
    func startMock(_ extra: [String] = []) async throws {
        let mock = try await BackgroundProcess.start(mockBinary, ["--fixtures", PackagePaths.mock.path, "--port", String(port), "--record", record] + extra, deadline: deadline)
        let line = try await mock.waitForLine(containing: "listening on")
        port = Int(line.split(separator: ":").last ?? "") ?? 0
        #expect(port > 0)
        self.mock = mock
    }

    func stopMock() async {
        await mock?.stop()
        mock = nil
    }

    @discardableResult
    func startDaemon(socket: String? = nil, state: String? = nil, _ extra: [String] = [], environment: [String: String] = [:]) async throws -> BackgroundProcess {
        let daemon = try await BackgroundProcess.start(
            daemonBinary,
            ["--server-url", serverURL, "--socket", socket ?? self.socket, "--state-dir", state ?? self.state, "--delivery-wait", "2"] + extra,
            environment: ["SURVEYD_BACKOFF_BASE": "0.2", "SURVEYD_BACKOFF_CAP": "1"].merging(environment) { $1 },
            deadline: deadline)
        if socket == nil && state == nil {
            _ = try await daemon.waitForLine(containing: "surveyd ready", onStandardError: true)
            self.daemon = daemon
        } else {
            others.append(daemon)
        }
        return daemon
    }

    func ctl(_ arguments: [String]) async throws -> ProcessResult {
        try await runProcess(ctlBinary, arguments + ["--socket", socket], deadline: .seconds(30))
    }

    /// Starts a session of `common` in English and answers every question but the last, so that
    /// the next answer completes the stage.
    func startAndAnswerAllButLast() async throws {
        _ = try await ctl(["start", "--lang", "en"])
        try await answer(Array(Stack.common.dropLast()))
    }

    /// Answers in order; each must be accepted (exit 0).
    func answer(_ values: [[String]]) async throws {
        for value in values {
            let result = try await ctl(["answer"] + value)
            #expect(result.status == 0, "answer \(value): \(result.stdout) \(result.stderr)")
        }
    }

    func json(_ arguments: [String]) async throws -> [String: Any] {
        let result = try await ctl(arguments + ["--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(arguments): \(result.stdout) \(result.stderr)")
    }

    /// The outcome of the session in an answer reply.
    func outcome(_ reply: [String: Any]) -> String? {
        (reply["session"] as? [String: Any])?["outcome"] as? String
    }

    func status() async throws -> [String: Any] { try await json(["status"]) }

    func queue() async throws -> [String: Any] { try #require(try await status()["queue"] as? [String: Any]) }

    /// Polls status (for up to 10 s) until the daemon says offline with no upload in flight;
    /// returns the last status seen (an issue is recorded when it never got there).
    func statusOnceOfflineAndIdle() async throws -> [String: Any] {
        var status: [String: Any] = [:]
        #expect(try await waitFor("offline with no upload in flight") {
            status = try await self.status()
            let inFlight = (status["queue"] as? [String: Any])?["inFlight"] as? Int
            return inFlight == 0 && (status["connectivity"] as? [String: Any])?["state"] as? String == "offline"
        }, "not offline and idle in time: \(status)")
        return status
    }

    /// Polls status (for up to 5 s) until it lists a follow-up; returns those it lists then
    /// (none, and an issue recorded, when it never did).
    func followUpsOnceListed() async throws -> [[String: Any]] {
        var followUps: [[String: Any]] = []
        #expect(try await eventually(timeout: .seconds(5), every: .milliseconds(100)) {
            followUps = try await status()["followUps"] as? [[String: Any]] ?? []
            return !followUps.isEmpty
        }, "no follow-up listed in time")
        return followUps
    }

    /// Polls `condition` as ``eventually(timeout:every:_:)`` does and says whether it held in
    /// time. When it did not, it records an issue naming `what` was waited for with what the daemon
    /// said of itself at that moment (`surveyctl status`: connectivity, the queue and why its next
    /// upload waits), so that a failure under load tells a slow machine from a stuck daemon.
    func waitFor(_ what: String, timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(100), _ condition: () async throws -> Bool) async throws -> Bool {
        if try await SurveyTesting.eventually(timeout: timeout, every: interval, condition) { return true }
        let status = try? await ctl(["status"])
        Issue.record("waited \(timeout) for \(what); the daemon's status then:\n\(status?.stdout ?? "")\(status?.stderr ?? "")")
        return false
    }

    /// The submissions the mock server accepted, one per line of its record.
    func records() throws -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: record, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// Upload requests the daemon logged as about to be sent (it logs them at debug level).
    func uploadRequestsLogged() -> Int {
        (daemon?.errorOutput ?? "").split(separator: "\n").filter { $0.contains("sending a request to the survey server") && $0.contains("/api/answers/") }.count
    }

    /// Runs `body` with a new stack (each process living at most `deadline`), finished (every
    /// process stopped, the directory removed) however the body ends.
    static func with(deadline: Duration? = nil, _ body: (Stack) async throws -> Void) async throws {
        let stack = try Stack()
        if let deadline { stack.deadline = deadline }
        do {
            try await body(stack)
        } catch {
            await stack.finish()
            throw error
        }
        await stack.finish()
    }

    func finish() async {
        for other in others { await other.stop() }
        await daemon?.stop()
        await mock?.stop()
        dir.remove()
    }

    static let common: [[String]] = [["Kim Minsu"], ["kim@example.com"], ["kim@example.com"], ["30"], ["5"]]
    static let stage1: [[String]] = [["beer"], ["home", "bar"], ["7"], ["--skip"], ["abc-12"]]
}

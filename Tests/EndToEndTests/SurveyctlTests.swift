import Foundation
import SurveyTesting
import Testing

/// surveyctl's own behaviour that needs no daemon.
@Suite(.timeLimit(.minutes(10))) struct SurveyctlTests {
    let surveyctl = PackagePaths.executable("surveyctl")

    @Test(arguments: [["status"], ["start"], ["flush", "--wait", "--timeout", "1"], ["dead"]])
    func noDaemonExits69WithAHint(arguments: [String]) async throws {
        let dir = try TemporaryDirectory(prefix: "ctl")
        defer { dir.remove() }
        let result = try await runProcess(surveyctl, arguments + ["--socket", dir.appending("none.sock").path], deadline: .seconds(30))
        #expect(result.status == 69)
        #expect(result.stderr.contains("no surveyd answers on \(dir.appending("none.sock").path)"))
        #expect(result.stderr.contains("Start it with `surveyd`"))
    }

    @Test(arguments: [
        (["answer"], "give an answer (e.g. surveyctl answer 2), or --skip for an optional question"),
        (["answer", "--skip", "x"], "give an answer or --skip, not both"),
        (["answer", "--position", "0", "x"], "--position is the question's number in its stage, from 1, not 0"),
        (["start", "--lang", "fr"], "--lang must be ko or en, not fr"),
        (["flush", "--timeout", "0"], "--timeout must be above 0 seconds"),
        (["requeue", "7", "--keep-key", "--new-key"], "give --keep-key or --new-key, not both"),
        (["requeue"], "give the id of a dead letter (surveyctl dead lists them), several ids, or --all"),
        (["requeue", "7", "--all"], "give ids or --all, not both"),
        (["requeue", "7", "8", "--new-key"], "--keep-key and --new-key apply to one letter at a time"),
        (["queue", "drop", "7"], "dropping dead letter 7 deletes it for good; add --yes to confirm"),
        (["flush", "--wait", "--timeout", "inf"], "--timeout must be a finite number of seconds, at most 86400 (one day), not inf"),
        (["flush", "--wait", "--timeout", "nan"], "--timeout must be a finite number of seconds, at most 86400 (one day), not nan"),
        (["flush", "--wait", "--timeout", "1e300"], "--timeout must be a finite number of seconds, at most 86400 (one day), not 1e+300"),
    ])
    func usageErrorsExit64(arguments: [String], message: String) async throws {
        let result = try await runProcess(surveyctl, arguments, deadline: .seconds(30))
        #expect(result.status == 64)
        #expect(result.stderr.contains(message))
    }

    /// `version` prints the client's version and, with a daemon, the daemon's; without one it
    /// still prints the client's and exits 69. `--version` prints the same client version.
    @Test func versionShowsClientAndDaemon() async throws {
        let dir = try TemporaryDirectory(prefix: "ver")
        defer { dir.remove() }
        let alone = try await runProcess(surveyctl, ["version", "--socket", dir.appending("none.sock").path], deadline: .seconds(30))
        #expect(alone.status == 69)
        #expect(alone.stdout == "surveyctl 0.3.0\n", "\(alone.stdout)")
        #expect(alone.stderr.contains("no surveyd answers"), "\(alone.stderr)")
        #expect(try await runProcess(surveyctl, ["--version"], deadline: .seconds(30)).stdout == "0.3.0\n")

        let stack = try Stack()
        try await stack.startMock()
        try await stack.startDaemon()
        let both = try await stack.ctl(["version"])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(both.stdout.hasPrefix("surveyctl 0.3.0\nsurveyd   0.3.0 (up "), "\(both.stdout)")
        let json = try await stack.ctl(["version", "--json"])
        let versions = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: String]
        #expect(versions == ["client": "0.3.0", "daemon": "0.3.0"])
        await stack.finish()
    }

    /// Shell completion scripts come from the argument parser itself.
    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScripts(shell: String) async throws {
        let result = try await runProcess(surveyctl, ["--generate-completion-script", shell], deadline: .seconds(30))
        #expect(result.status == 0)
        for word in ["surveyctl", "requeue", "version", "socket"] {
            #expect(result.stdout.contains(word), "\(shell): \(word)")
        }
    }

    @Test func helpDocumentsExitCodes() async throws {
        let result = try await runProcess(surveyctl, ["--help"], deadline: .seconds(30))
        #expect(result.status == 0)
        #expect(result.stdout.contains("69 the daemon is"))
        #expect(result.stdout.contains("75 temporary failure"))
        #expect(result.stdout.contains("74 a journal of the daemon cannot write"))
    }
}

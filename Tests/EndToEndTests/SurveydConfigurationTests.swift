import Foundation
import SurveyTesting
import Testing

/// The built `surveyd` reads its settings as `doc/configuration.md` says, and refuses a wrong
/// value before starting anything.
@Suite(.timeLimit(.minutes(10))) struct SurveydConfigurationTests {
    let surveyd = PackagePaths.executable("surveyd")

    /// The flag column of the doc's settings table (which a unit test keeps equal to the
    /// declarations): every flag there is one `surveyd` accepts.
    @Test func helpListsEveryDocumentedFlag() async throws {
        let doc = try String(contentsOf: PackagePaths.root.appendingPathComponent("doc/configuration.md"), encoding: .utf8)
        let flags = doc.split(separator: "\n").filter { $0.hasPrefix("| `") }.compactMap { row -> String? in
            let cells = row.replacingOccurrences(of: "\\|", with: "/").split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 6, cells[2].hasPrefix("`--") else { return nil }
            return String(cells[2].dropFirst().prefix { $0 != " " && $0 != "`" })
        }
        #expect(flags.count >= 10, "\(flags)")
        let help = try await runProcess(surveyd, ["--help"], deadline: .seconds(30))
        #expect(help.status == 0)
        for flag in flags {
            #expect(help.stdout.contains("  \(flag) <"), "surveyd --help lacks \(flag)")
        }
    }

    @Test func wrongValuesExit78NamingTheirSource() async throws {
        let dir = try TemporaryDirectory(prefix: "sc")
        defer { dir.remove() }
        let base = ["--state-dir", dir.appending("state").path, "--socket", dir.appending("d.sock").path, "--server-url", "http://127.0.0.1:9"]
        let environment = ["HOME": dir.path, "PATH": "/usr/bin:/bin"]

        let flag = try await runProcess(surveyd, base + ["--max-in-flight", "0"], environment: environment, deadline: .seconds(30))
        #expect(flag.status == 78)
        #expect(flag.stderr.contains("surveyd: surveyd configuration: flag --max-in-flight: must be from 1 to 64, got 0"), "\(flag.stderr)")

        let variable = try await runProcess(surveyd, base, environment: environment.merging(["SURVEYD_LANG": "fr"]) { a, _ in a }, deadline: .seconds(30))
        #expect(variable.status == 78)
        #expect(variable.stderr.contains(#"surveyd configuration: environment variable SURVEYD_LANG: "fr" is not ko or en"#), "\(variable.stderr)")

        let file = dir.appending("surveyd.json")
        try Data(#"{"idleSessionTimeoutSeconds": 0}"#.utf8).write(to: file)
        let fromFile = try await runProcess(surveyd, base + ["--config", file.path], environment: environment, deadline: .seconds(30))
        #expect(fromFile.status == 78)
        #expect(fromFile.stderr.contains("surveyd configuration: configuration file \(file.path), key idleSessionTimeoutSeconds: must be above 0 and at most 604800 (1 week), got 0.0"), "\(fromFile.stderr)")

        let exposed = try await runProcess(surveyd, base + ["--metrics-listen", "0.0.0.0:9464"], environment: environment, deadline: .seconds(30))
        #expect(exposed.status == 78)
        #expect(exposed.stderr.contains(#"surveyd configuration: flag --metrics-listen: "0.0.0.0:9464" is not a loopback address"#), "\(exposed.stderr)")

        let unparsable = try await runProcess(surveyd, base + ["--idle-timeout", "soon"], environment: environment, deadline: .seconds(30))
        #expect(unparsable.status == 64)
        #expect(!FileManager.default.fileExists(atPath: dir.appending("state").path))
    }
}

import Foundation
import SurveyTesting
import Testing

/// Rules that keep a run of the suite bounded, checked on the sources.
@Suite(.timeLimit(.minutes(10))) struct SuiteRulesTests {
    /// The source files of the test targets (not the support modules, helpers or benchmarks).
    static func testSources() throws -> [(path: String, text: String)] {
        let root = PackagePaths.root.appending(path: "Tests")
        let skipped = ["Support/", "Helpers/", "Benchmarks/"]
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && !skipped.contains(where: $0.hasPrefix) } ?? []
        return try files.sorted().map { ($0, try String(contentsOf: root.appending(path: $0), encoding: .utf8)) }
    }

    /// Every test runs under a time limit in whole minutes, so that one that hangs in an `await`
    /// fails with its name instead of holding the run until CI's limit: each suite has a
    /// `.timeLimit` trait, and so does each test outside a suite. (A blocking call cannot be ended
    /// by a time limit: `.ci/test-watchdog` covers those.)
    @Test func everySuiteAndEveryTestOutsideOneHasATimeLimit() throws {
        let sources = try Self.testSources()
        #expect(sources.count > 50, "the test sources were found under \(PackagePaths.root.path)/Tests")
        var missing: [String] = []
        for (path, text) in sources {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let suites = lines.enumerated().filter { $0.element.trimmingCharacters(in: .whitespaces).hasPrefix("@Suite") }
            for (number, line) in suites where !line.contains(".timeLimit(.minutes(") {
                missing.append("\(path):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
            guard suites.isEmpty else { continue }
            for (number, line) in lines.enumerated() where line.trimmingCharacters(in: .whitespaces).hasPrefix("@Test") && !line.contains(".timeLimit(.minutes(") {
                missing.append("\(path):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(missing.isEmpty, "add .timeLimit(.minutes(N)) to: \(missing.joined(separator: "; "))")
    }

    /// No Foundation `Process` or `Pipe` anywhere: on Linux `Process` watches its children with a
    /// socket manager that waits in `select`, which cannot see a descriptor above 1024, and the
    /// tests raise the open-file limit (HeldConnections). A child's exit then goes unseen and
    /// `waitUntilExit()` never returns. Children come from ProcessTesting instead.
    @Test func noChildProcessGoesThroughFoundation() throws {
        var found: [String] = []
        for folder in ["Modules", "Apps", "Tests"] {
            let root = PackagePaths.root.appending(path: folder)
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            for file in files where file != "EndToEndTests/SuiteRulesTests.swift" {
                let text = try String(contentsOf: root.appending(path: file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.contains("Process()") || line.contains("Pipe()") || line.contains("waitUntilExit") {
                    found.append("\(folder)/\(file):\(number + 1)")
                }
            }
        }
        #expect(found.isEmpty, "start children with ProcessTesting (runProcess, BackgroundProcess, SpawnedProcess): \(found)")
    }
}

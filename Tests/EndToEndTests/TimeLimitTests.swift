import Foundation
import SurveyTesting
import Testing

/// Every test runs under a time limit in whole minutes, so that one that hangs in an `await` fails
/// with its name instead of holding the run until CI's limit: each suite has a `.timeLimit` trait,
/// and so does each test outside a suite. (A blocking call cannot be ended by a time limit:
/// `.ci/run`'s watchdog covers those.)
@Suite(.timeLimit(.minutes(10))) struct TimeLimitTests {
    /// The source files of the test targets (not the support modules, helpers or benchmarks).
    static func testSources() throws -> [(path: String, text: String)] {
        let root = PackagePaths.root.appending(path: "Tests")
        let skipped = ["Support/", "Helpers/", "Benchmarks/"]
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && !skipped.contains(where: $0.hasPrefix) } ?? []
        return try files.sorted().map { ($0, try String(contentsOf: root.appending(path: $0), encoding: .utf8)) }
    }

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
}

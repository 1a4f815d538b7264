import Foundation

/// Tools a test needs from the machine (a browser, a compiler, a server package), and what a run
/// does without them: a developer's run skips the test, saying what to install; a run under
/// `CI=true` (what `.ci/run` sets) fails it with the same words, since a check that guards risky
/// code must not pass quietly by not running.
///
/// `SURVEYD_TEST_HIDE_TOOLS` (names separated by commas, e.g. `chromium,chromedriver`) makes
/// the tools of those names count as missing here, to see what a machine without them does.
public struct RequiredTools: Sendable {
    /// What the tools are, for people: "Chromium, chromedriver and the browser tests' Python".
    public let what: String
    /// What installs them: "run Tests/Browser/install.sh".
    public let install: String
    /// The programs that must be there and executable.
    public let executables: [String]
    /// Other files that must be there (a header, a virtual environment's marker).
    public let files: [String]

    public init(_ what: String, executables: [String], files: [String] = [], install: String) {
        self.what = what
        self.executables = executables
        self.files = files
        self.install = install
    }

    /// The files that are missing here (or hidden by `SURVEYD_TEST_HIDE_TOOLS`).
    public func missing(environment: [String: String]? = nil) -> [String] {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let hidden = Set((environment["SURVEYD_TEST_HIDE_TOOLS"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        func isHidden(_ path: String) -> Bool { hidden.contains((path as NSString).lastPathComponent) }
        let absentExecutables = executables.filter { isHidden($0) || !FileManager.default.isExecutableFile(atPath: $0) }
        let absentFiles = files.filter { isHidden($0) || !FileManager.default.fileExists(atPath: $0) }
        return absentExecutables + absentFiles
    }

    /// The reason a developer's run gives for skipping.
    public var skipReason: String { "needs \(what): \(install)" }

    /// Whether the test runs: true where everything is installed; false (skip) where something
    /// is missing; under `CI=true`, a missing tool throws instead, naming what to install.
    public func mayRun(environment: [String: String]? = nil) throws -> Bool {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let absent = missing(environment: environment)
        guard !absent.isEmpty else { return true }
        guard environment["CI"] == "true" else { return false }
        throw MissingToolsError(description: "CI=true and \(absent.joined(separator: ", ")) missing: this test needs \(what); \(install) (a CI run fails rather than skip a check)")
    }
}

/// A tool a test needs is missing under `CI=true`.
public struct MissingToolsError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

import Foundation
import SurveyTesting
import Testing

/// `.ci/run` stops where an install script of the tests could not install what they need: it
/// runs each through `.ci/require-install`, which fails on a `SKIPPED:` line or an error.
@Suite(.timeLimit(.minutes(2))) struct RequireInstallTests {
    static let script = PackagePaths.root.appending(path: ".ci/require-install")

    func run(_ body: String) async throws -> ProcessResult {
        let dir = try TemporaryDirectory(prefix: "require-install")
        defer { dir.remove() }
        let installer = dir.appending("install.sh").path
        try body.write(toFile: installer, atomically: true, encoding: .utf8)
        return try await runProcess(Self.script, [installer], deadline: .seconds(60))
    }

    @Test func aSkippedInstallFailsTheRun() async throws {
        let result = try await run("echo '== apt-get update'\necho 'SKIPPED: apt-get update failed (no package index reachable)'\n")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("SKIPPED: apt-get update failed") && result.stdout.contains("FAILED:") && result.stdout.contains("does not skip"), "\(result.stdout)")
    }

    @Test func aFailedInstallFailsTheRun() async throws {
        let result = try await run("echo half-way\nexit 3\n")
        #expect(result.status == 1 && result.stdout.contains("half-way") && result.stdout.contains("exited with status 3"), "\(result)")
    }

    @Test func aCompleteInstallLetsTheRunGoOn() async throws {
        let result = try await run("echo 'READY: the browser'\n")
        #expect(result.status == 0 && result.stdout.contains("READY: the browser") && !result.stdout.contains("FAILED"), "\(result)")
    }
}

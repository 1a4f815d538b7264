import Foundation
import SurveyTesting
import Testing

/// Every benchmark takes `--help`, prints its options and exits 0; a wrong option is refused
/// with a usage error (exit 64), before anything is measured.
@Suite(.timeLimit(.minutes(10))) struct BenchmarkHelpTests {
    static let benchmarks: [(String, [String])] = [
        ("StorageBenchmark", ["measure", "open", "fill"]),
        ("DaemonBenchmark", ["<fixtures-path>"]),
        ("FleetSimulation", ["--seed", "--grid", "--fleets"]),
        ("NetworkingBenchmark", ["<fixtures-path>"]),
        ("StartupBenchmark", ["--rounds", "--idle", "--mock"]),
    ]

    @Test(arguments: benchmarks)
    func everyBenchmarkPrintsItsOptions(name: String, options: [String]) async throws {
        let binary = PackagePaths.executable(name)
        let help = try await runProcess(binary, ["--help"], deadline: .seconds(60))
        #expect(help.status == 0, "\(name) --help: \(help.stdout) \(help.stderr)")
        #expect(help.stdout.contains("USAGE:"), "\(name): \(help.stdout)")
        for option in options { #expect(help.stdout.contains(option), "\(name) --help does not list \(option): \(help.stdout)") }
        let wrong = try await runProcess(binary, ["--no-such-option"], deadline: .seconds(60))
        #expect(wrong.status == 64 && wrong.stderr.contains("Error:") && wrong.stderr.contains("Usage:"), "\(name): \(wrong.status) \(wrong.stderr)")
    }

    @Test func storageBenchmarkListsTheMeasurementsOptions() async throws {
        let help = try await runProcess(PackagePaths.executable("StorageBenchmark"), ["measure", "--help"], deadline: .seconds(60))
        #expect(help.status == 0)
        for option in ["--dir", "--records", "--seconds", "--open-rounds"] { #expect(help.stdout.contains(option), "\(help.stdout)") }
    }
}

// `swift run LifecycleWalk --seeds N`: walks seeds through a kiosk's life against the built
// surveyd and mock server (`swift build` first), prints each finding with its seed and steps,
// and the steps per second. Exits 1 when a walk found a broken promise.

import ArgumentParser
import Foundation
import LifecycleWalking

@main
struct LifecycleWalk: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Walk seeded sequences of steps (respondents, kill -9, power cuts, encryption, keys, tokens, outages, portals, clock steps) through real surveyd processes and check the model after each.")

    @Option(help: "How many seeds to walk, from --first.") var seeds = 10
    @Option(help: "The first seed.") var first: UInt64 = 1
    @Option(help: "Walk this one seed only (a seed a finding printed).") var seed: UInt64?
    @Option(help: "Steps per walk.") var steps = 16
    @Flag(help: "Print every walk, not only the findings.") var verbose = false
    @Option(help: "The folder of the surveyd and mock-survey-server to walk (default: this build's).") var binaries: String?

    func run() async throws {
        let run: WalkRun
        if let binaries { run = try await WalkRun(binaries: URL(fileURLWithPath: binaries)) } else { run = try await WalkRun() }
        defer { run.remove() }
        let walker = LifecycleWalker(run: run, steps: steps)
        let chosen: [UInt64] = seed.map { [$0] } ?? (0 ..< UInt64(max(0, seeds))).map { first + $0 }
        let clock = ContinuousClock()
        let start = clock.now
        var stepsRun = 0
        var findings: [WalkResult] = []
        for (index, seed) in chosen.enumerated() {
            let result = await walker.walk(seed: seed)
            stepsRun += result.ran
            if result.finding != nil { findings.append(result) }
            if result.finding != nil || verbose { say(result.report) }
            if (index + 1) % 10 == 0 { say("\(index + 1) of \(chosen.count) seeds walked, \(findings.count) finding(s)") }
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        say(String(format: "%d seeds, %d steps in %.1f s (%.2f steps/s): %d finding(s)%@", chosen.count, stepsRun, seconds, Double(stepsRun) / max(seconds, 0.001), findings.count,
                     findings.isEmpty ? "" : " at seeds " + findings.map { String($0.seed) }.joined(separator: ", ")))
        if !findings.isEmpty { throw ExitCode.failure }
    }
}

/// Writes `line` at once, also into a file or a pipe (where `print` holds its output back), so
/// that a long run shows where it is.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

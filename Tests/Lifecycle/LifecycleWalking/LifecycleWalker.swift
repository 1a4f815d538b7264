// A seeded walk through a kiosk's life (doc/lifecycle-walker.md): real
// surveyd and mock server processes, a sequence of steps drawn from the seed, and the model's
// promises checked after every step and at the end. A failing walk prints its seed and its steps;
// the same seed walks the same steps again.

import Foundation
import SurveyTesting

/// What one walk came to.
public struct WalkResult: Sendable {
    public var seed: UInt64
    public var steps: [WalkStep]
    /// Steps run (the walk stops at its first finding), and those skipped for their precondition.
    public var ran: Int
    public var skipped: Int
    /// The promise broken, with the step it was found after; nil when every check held.
    public var finding: String?
    public var elapsed: Duration

    /// The seed and the steps, numbered, with the finding: enough to walk it again.
    public var report: String {
        var lines = ["seed \(seed): \(finding == nil ? "every promise held" : "FINDING") after \(ran) of \(steps.count) steps (\(skipped) skipped) in \(elapsed)"]
        for (index, step) in steps.enumerated() { lines.append(String(format: "  %2d. ", index + 1) + step.description + (index + 1 == ran && finding != nil ? "   <- here" : "")) }
        if let finding { lines.append("  finding: \(finding)") }
        lines.append("  again: swift run LifecycleWalk --seed \(seed) --steps \(steps.count)")
        return lines.joined(separator: "\n")
    }
}

/// Walks seeds.
public struct LifecycleWalker: Sendable {
    public let run: WalkRun
    /// Steps per walk.
    public var steps: Int
    /// How long each process of a walk may live.
    public var deadline: Duration = .seconds(600)

    public init(run: WalkRun, steps: Int) {
        self.run = run
        self.steps = steps
    }

    /// The captive portal kinds the mock server has (doc/mock-server.md).
    public static let portals = ["html", "json", "empty", "redirect", "status511", "status403", "status404"]

    /// Walks `seed`: draws its steps, runs them against real processes, checks the model after
    /// each, then delivers everything and checks the server's record.
    public func walk(seed: UInt64) async -> WalkResult {
        let plan = WalkStep.walk(seed: seed, count: steps, portals: Self.portals)
        let start = ContinuousClock.now
        var result = WalkResult(seed: seed, steps: plan, ran: 0, skipped: 0, finding: nil, elapsed: .zero)
        let world: WalkWorld
        do {
            world = try WalkWorld(clock: run.clock, binaries: run.binaries, deadline: deadline, ownFileSystem: Tmpfs.canMount)
        } catch {
            result.finding = "the walk could not start: \(error)"
            return result
        }
        // The keys' and the torn frames' bytes come from a generator of their own, so the plan
        // stays the seed's alone.
        var bytes = SplitMix(seed: seed ^ 0x5EED_B17E)
        do {
            try await world.startMock()
            try await world.startDaemon()
            for step in plan {
                result.ran += 1
                if try await !apply(step, to: world, bytes: &bytes) { result.skipped += 1 }
                try await check(world)
            }
            result.ran += 1
            try await settle(world)
        } catch {
            result.finding = "\(error)"
        }
        result.elapsed = ContinuousClock.now - start
        await world.finish()
        return result
    }
}

import LifecycleWalking
import SurveyTesting
import Testing

/// The lifecycle walker in CI: a fixed set of seeds, each a walk of real surveyd processes through
/// respondents, kill -9, power cuts, clean stops, encryption turned on, keys rotated, tokens
/// changed, outages, faulty servers, captive portals, clock steps and a foreign segment copied in,
/// checked against the model after every step (`swift run LifecycleWalk --seeds N` walks more).
@Suite(.serialized, .timeLimit(.minutes(10))) struct LifecycleWalkTests {
    /// The seeds CI walks; a finding prints its seed and steps, which walk again from the seed.
    static let seeds: [UInt64] = [1, 2, 3, 4, 5, 6]

    @Test func theFixedSeedsKeepEveryPromise() async throws {
        let run = try await WalkRun()
        defer { run.remove() }
        let walker = LifecycleWalker(run: run, steps: 16)
        for seed in Self.seeds {
            let result = await walker.walk(seed: seed)
            report("lifecycle walk: seed \(seed), \(result.ran) steps (\(result.skipped) skipped) in \(result.elapsed)")
            #expect(result.finding == nil, "\(result.report)")
        }
    }

    /// The same seed draws the same steps: what makes a finding reproducible.
    @Test func aSeedDrawsTheSameStepsAgain() {
        let portals = LifecycleWalker.portals
        #expect(WalkStep.walk(seed: 42, count: 40, portals: portals) == WalkStep.walk(seed: 42, count: 40, portals: portals))
        #expect(WalkStep.walk(seed: 42, count: 40, portals: portals) != WalkStep.walk(seed: 43, count: 40, portals: portals))
    }
}

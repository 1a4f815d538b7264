#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// The child processes of the tests end by their deadlines, whatever they do with their pipes.
@Suite(.timeLimit(.minutes(5))) struct ProcessTestingTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    /// A child killed at its deadline leaves a grandchild that inherited its pipes: `runProcess`
    /// returns all the same, says the child timed out, and gives what was read.
    @Test func aGrandchildHoldingThePipesDoesNotHoldTheRun() async throws {
        let result = try await runProcess(Self.shell, ["-c", "sleep 300 & echo $!; wait"], deadline: .seconds(2))
        let grandchild = try #require(Int32(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(result)")
        defer { kill(grandchild, SIGKILL) }
        #expect(result.timedOut && result.status == 128 + SIGKILL, "\(result)")
        #expect(kill(grandchild, 0) == 0, "the grandchild still ran, holding the pipes, when runProcess returned")
    }

    /// A background child that closed its outputs and lives on is still killed at its deadline.
    @Test func aBackgroundChildThatClosedItsOutputsIsKilledAtItsDeadline() async throws {
        let child = try await BackgroundProcess.start(Self.shell, ["-c", "exec >&- 2>&-; exec sleep 300"], deadline: .seconds(2))
        let ended = await eventually(timeout: .seconds(30), every: .milliseconds(50)) { !child.isRunning }
        #expect(ended, "still running after its deadline")
        #expect(child.status == 128 + SIGKILL, "\(String(describing: child.status))")
    }
}

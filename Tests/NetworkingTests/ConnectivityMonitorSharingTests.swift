import Foundation
import Synchronization
import Testing
@testable import Networking

/// A probe that waits until released (or cancelled), counting its calls.
final class GatedProbe: ConnectivityProbe {
    let calls = Mutex(0)
    let cancelled = Mutex(false)
    let released = Mutex(false)

    func isReachable() async -> Bool {
        calls.withLock { $0 += 1 }
        while !released.withLock({ $0 }) {
            do { try await Task.sleep(for: .milliseconds(2)) } catch {
                cancelled.withLock { $0 = true }
                return false
            }
        }
        return true
    }
}

@Suite(.timeLimit(.minutes(5))) struct ConnectivityMonitorSharingTests {
    /// Callers that come while a probe runs wait for its verdict: one probe for all.
    @Test func concurrentCallersShareOneProbe() async throws {
        let probe = GatedProbe()
        let monitor = ConnectivityMonitor(probe: probe, reuse: .zero)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0 ..< 5 { group.addTask { await monitor.isReachable() } }
            // Released once the first call runs its probe and the four others wait for it (however
            // long a loaded machine takes; the suite's time limit cancels the sleep of a test that hangs).
            while await monitor.waiting < 4 { try await Task.sleep(for: .milliseconds(1)) }
            probe.released.withLock { $0 = true }
            var verdicts: [Bool] = []
            for try await verdict in group { verdicts.append(verdict) }
            #expect(verdicts == Array(repeating: true, count: 5))
        }
        #expect(probe.calls.withLock { $0 } == 1)
        #expect(await monitor.status.state == .online)
    }

    /// The probe runs in its caller's task: cancelling the caller cancels the probe, nothing
    /// is left running in a task of its own.
    @Test func cancellingTheCallerCancelsTheProbe() async throws {
        let probe = GatedProbe()
        let monitor = ConnectivityMonitor(probe: probe, reuse: .zero)
        let caller = Task { await monitor.isReachable() }
        while probe.calls.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(1)) }
        caller.cancel()
        #expect(await caller.value == false)
        #expect(probe.cancelled.withLock { $0 })
    }
}

import Foundation
import Logging
import Networking
import ServiceLifecycle
import Storage
import Synchronization
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// A probe whose answer the test sets, counting its calls.
final class SwitchProbe: ConnectivityProbe {
    let reachable = Mutex(false)
    let calls = Mutex(0)
    func isReachable() async -> Bool {
        calls.withLock { $0 += 1 }
        return reachable.withLock { $0 }
    }
}

@Suite(.timeLimit(.minutes(5))) struct ConnectivityWatcherTests {
    /// The worker met the outage first (the watcher never saw it offline): once the server is
    /// reachable, the watcher wakes it, and it delivers without waiting out its offline pause.
    @Test func wakesAWorkerThatFoundTheServerOffline() async throws {
        let offline = OfflineDelivery()
        let (queue, uploader, worker) = (offline.queue, offline.uploader, offline.worker)
        let group = ServiceGroup(services: [worker], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        let task = Task { try await group.run() }
        try #require(await eventually { await worker.snapshot.lastOutcomeOffline })

        let probe = SwitchProbe()
        let monitor = ConnectivityMonitor(probe: probe, reuse: .zero)
        // Still offline: the worker is left asleep (a wake is counted the moment it is asked for).
        let wakes = await worker.wakeup.wakes
        await ConnectivityWatcher.check(monitor: monitor, worker: worker)
        #expect(await worker.wakeup.wakes == wakes, "the watcher woke the worker while offline")
        #expect(queue.states() == [.pending])

        // Back: one check wakes it and the submission is delivered.
        probe.reachable.withLock { $0 = true }
        uploader.offline.withLock { $0 = false }
        await ConnectivityWatcher.check(monitor: monitor, worker: worker)
        // Delivered, and the worker's round (which records the outcome) is over.
        #expect(await eventually { await !worker.snapshot.lastOutcomeOffline && !queue.states().contains(.pending) })
        #expect(queue.states() == [.delivered(response: nil)])
        #expect(probe.calls.withLock { $0 } == 2)

        // Online now: the watcher does not probe again.
        await ConnectivityWatcher.check(monitor: monitor, worker: worker)
        #expect(probe.calls.withLock { $0 } == 2)
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

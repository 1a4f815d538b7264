import Foundation
import Logging
import Networking
import ServiceLifecycle
import Storage
@testable import SurveyDaemon
import SurveyTesting
import Synchronization
import Testing

/// A refused token pauses delivery instead of making every queued submission a dead letter; a
/// resume drains the queue in order.
extension DeliveryWorkerTests {
    @Test(.timeLimit(.minutes(5))) func aRefusedTokenPausesDeliveryAndKeepsEverySubmission() async throws {
        let queue = MemoryDeliveryQueue()
        for i in 1...6 { _ = queue.add("s\(i)", at: TimeInterval(i)) }
        // The first two uploads in flight are refused; the others would be delivered.
        let uploader = ScriptedUploader(["s1": [.unauthorized(status: 401, reason: "token")], "s2": [.unauthorized(status: 401, reason: "token")]])
        let worker = worker(queue, uploader, maxInFlight: 2)
        let group = ServiceGroup(services: [worker], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        let task = Task { try await group.run() }

        // Paused, the round over and the worker asleep until woken (there is no timer to end a
        // paused sleep): from here on nothing can be sent but by a wake.
        #expect(await eventually {
            let snapshot = await worker.snapshot
            let asleep = await worker.wakeup.isWaiting
            return snapshot.paused != nil && snapshot.inFlight == 0 && asleep
        })
        let paused = try #require(await worker.snapshot.paused)
        #expect(paused.reason == "the server refused the token (401)")
        // Nothing else was sent, and nothing became a dead letter.
        #expect(uploader.attempts.withLock { $0.count } <= 2)
        #expect(queue.states().allSatisfy { $0 == .pending })
        #expect(queue.outcomes.withLock { $0.isEmpty })

        // Resumed: the queue drains, oldest first, the refused ones included.
        #expect(await worker.resume(because: "test") == paused)
        #expect(await worker.resume(because: "again") == nil, "resuming a running worker does nothing")
        #expect(await eventually { queue.states().allSatisfy { $0 == .delivered(response: nil) } })
        let order = uploader.attempts.withLock { $0.map(\.stage) }
        #expect(Array(order.dropFirst(2).prefix(2)).sorted() == ["s1", "s2"], "\(order)")
        #expect(await worker.snapshot.paused == nil)
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// Where the directory cannot be watched, the token file watcher looks at the file every
    /// interval, and resumes a paused worker once it changed, not before.
    @Test(.timeLimit(.minutes(5))) func aChangedTokenFileResumesDelivery() async throws {
        let dir = try TemporaryDirectory(prefix: "tok")
        defer { dir.remove() }
        let token = dir.appending("token").path
        try "old".write(toFile: token, atomically: true, encoding: .utf8)
        let (queue, worker, client) = tokenRefusedOnce(token: token)
        let clock = ManualClock()
        // A directory that cannot be watched: the file is looked at every interval instead.
        let watcher = TokenFileWatcher(path: token, worker: worker, client: client, interval: .seconds(2), clock: clock, watch: { _, _ in .failure(DirectoryWatchError(errno: ENOSPC)) })
        let group = ServiceGroup(services: [worker, watcher], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        let task = Task { try await group.run() }

        // The watcher looks at the file each time its clock passes an interval, and sleeps again.
        #expect(await eventually { await worker.snapshot.paused != nil && clock.sleeping == 1 })
        clock.advance(by: .seconds(2))
        #expect(await eventually { clock.deadlines == [.seconds(4)] }, "the watcher looked at the file and sleeps again")
        #expect(await worker.snapshot.paused != nil, "an unchanged token file keeps delivery paused")
        try "new".write(toFile: token, atomically: true, encoding: .utf8)
        clock.advance(by: .seconds(2))
        #expect(await eventually { queue.states() == [.delivered(response: nil)] })
        #expect(await worker.snapshot.paused == nil)
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// The token file watcher resumes a paused worker when the file is replaced, told by its
    /// directory: no timer runs while it waits.
    @Test(.timeLimit(.minutes(5))) func aReplacedTokenFileResumesDeliveryWithoutATimer() async throws {
        let dir = try TemporaryDirectory(prefix: "tok")
        defer { dir.remove() }
        let token = dir.appending("token").path
        try "old".write(toFile: token, atomically: true, encoding: .utf8)
        let (queue, worker, client) = tokenRefusedOnce(token: token)
        let clock = ManualClock()
        let watcher = TokenFileWatcher(path: token, worker: worker, client: client, clock: clock)
        let group = ServiceGroup(services: [worker, watcher], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        let task = Task { try await group.run() }
        #expect(await eventually { await worker.snapshot.paused != nil })
        // Another file of the directory changes: still paused.
        try "x".write(toFile: dir.appending("other").path, atomically: true, encoding: .utf8)
        #expect(clock.sleeping == 0, "the watcher sets no timer")
        #expect(await worker.snapshot.paused != nil)
        try "new".write(toFile: token, atomically: true, encoding: .utf8)
        #expect(await eventually { queue.states() == [.delivered(response: nil)] })
        #expect(await worker.snapshot.paused == nil)
        #expect(clock.sleeping == 0)
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

extension DeliveryWorkerTests {
    /// One submission whose upload the server refuses for its token, a worker with it, and a
    /// client reading `token`: the worker pauses until the token file changes.
    func tokenRefusedOnce(token: String) -> (MemoryDeliveryQueue, DeliveryWorker, SurveyClient) {
        let queue = MemoryDeliveryQueue()
        _ = queue.add("s1", at: 1)
        let uploader = ScriptedUploader(["s1": [.unauthorized(status: 403, reason: "token")]])
        let worker = worker(queue, uploader, maxInFlight: 1)
        let client = SurveyClient(
            configuration: SurveyClientConfiguration(baseURL: URL(string: "http://127.0.0.1:9")!, tokenFile: token),
            transport: ScriptedServer { _ in ScriptedServer.ok(Data()) }, connectivity: ConnectivityMonitor(probe: AlwaysReachable(), reuse: .seconds(3600)),
            logger: Logger(label: "test"))
        return (queue, worker, client)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
@testable import Storage
import SurveyTesting
import Synchronization
import Testing

private let logger = Logger(label: "queue-tests")

private func metadata(_ i: Int, stage: String = "common", hash: String = "h1") -> SubmissionMetadata {
    SubmissionMetadata(key: UUID(), stage: stage, language: i % 2 == 0 ? "ko" : "en", definitionHash: hash, queuedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)), session: i % 3 == 0 ? UUID() : nil)
}

private func body(_ i: Int) -> [UInt8] { Array(#"{"answers":{"n":\#(i)}}"#.utf8) }

private func smallSegments(_ size: Int = 4096, encrypted: Bool = false) -> SubmissionQueueOptions {
    var o = SubmissionQueueOptions()
    if encrypted { o.journal.encryption = Encryption.keys(1) }
    o.journal.segmentSize = size
    return o
}

@Suite(.timeLimit(.minutes(5))) struct SubmissionQueueTests {
    /// Closing ends the queue's threads (its journal's writer and the actor's own); a call that
    /// comes after still gets its answer, on a thread that ends with it.
    @Test func closingEndsTheQueuesThreads() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        _ = try await queue.enqueueNew(metadata(1), body: body(1))
        #expect(queue.threadsRunning.count == 2, "\(queue.threadsRunning)")
        await queue.close()
        #expect(queue.threadsRunning.isEmpty, "\(queue.threadsRunning)")
        #expect(await queue.counts().pending == 1)
        #expect(await eventually { queue.threadsRunning.isEmpty }, "\(queue.threadsRunning)")
        await #expect(throws: StorageError.self) { try await queue.enqueueNew(metadata(2), body: body(2)) }
    }

    @Test func pendingIsFIFOAndSurvivesReopenWithBodiesFromDisk() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var queued: [QueuedSubmission] = []
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: smallSegments(), logger: logger)
            for i in 0..<50 { queued.append(try await queue.enqueueNew(metadata(i), body: body(i))) }
            #expect(await queue.pending(limit: 100) == queued)
            #expect(await queue.pending(limit: 3) == Array(queued.prefix(3)))
            await queue.close()
        }
        let reopened = try SubmissionQueue(directory: dir.path, options: smallSegments(), logger: logger)
        defer { reopened.close(then: {}) }
        #expect(await reopened.pending(limit: 100) == queued)
        for (i, q) in queued.enumerated() {
            #expect(Array(try await reopened.body(of: q.id)) == body(i))
        }
        // Several in one call, in the order asked; an unknown id fails alone.
        let read = await reopened.bodies(of: [queued[7].id, SubmissionID(9_999), queued[2].id])
        #expect(read.map { try? Array($0.get()) } == [body(7), nil, body(2)])
        let counts = await reopened.counts()
        #expect(counts.pending == 50 && counts.dead == 0)
        #expect(counts.oldestPendingAt == queued[0].metadata.queuedAt)
        #expect(try reopened.journal.segments().count > 1)
    }

    @Test func deliveredDeadAndRequeuedStatesAreDurable() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var q: [QueuedSubmission] = []
        do {
            let queue = try SubmissionQueue(directory: dir.path, logger: logger)
            for i in 0..<4 { q.append(try await queue.enqueueNew(metadata(i), body: body(i))) }
            try await queue.markDelivered(q[0].id, response: "1")
            try await queue.markDead(q[1].id, reason: "400: missing like")
            try await queue.markDead(q[2].id, reason: "isSuccess false")
            #expect(try await queue.requeue(q[2].id) == q[2])
            #expect(try await queue.requeue(q[3].id) == nil)
            await queue.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.pending(limit: 10) == [q[2], q[3]])
        #expect(await queue.dead() == [DeadSubmission(submission: q[1], reason: "400: missing like")])
        #expect(await queue.state(of: q[0].metadata.key) == .delivered(response: "1"))
        #expect(await queue.state(of: q[1].metadata.key) == .dead(reason: "400: missing like"))
        #expect(await queue.state(of: q[2].metadata.key) == .pending)
        #expect(await queue.state(of: UUID()) == nil)
        // A delivered submission is gone: marking it again names the problem.
        await #expect(throws: StorageError.self) { try await queue.markDelivered(q[0].id, response: nil) }
        let counts = await queue.counts()
        #expect(counts.pending == 2 && counts.dead == 1 && counts.delivered == 0)
        #expect(counts.oldestPendingAt == q[2].metadata.queuedAt)
    }

    @Test func aKeyIsQueuedOnce() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        defer { queue.close(then: {}) }
        let m = metadata(1)
        let first = try await queue.enqueueNew(m, body: body(1))
        #expect(try await queue.enqueue(m, body: body(2)) == .alreadyQueued(first))
        #expect(await queue.pending(limit: 10).count == 1)
        try await queue.markDelivered(first.id, response: nil)
        // A delivered key is named as such, with no made-up entry.
        #expect(try await queue.enqueue(m, body: body(1)) == .alreadyDelivered)
        #expect(await queue.pending(limit: 10).isEmpty)
        #expect(await queue.counts().pending == 0)
    }

    /// Two enqueues of one key at once (a session's stage queued again while its first enqueue
    /// is being written): the second waits for the first and finds it, one submission is queued.
    @Test func concurrentEnqueuesOfOneKeyQueueItOnce() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        defer { queue.close(then: {}) }
        let m = metadata(1)
        async let first = queue.enqueue(m, body: body(1))
        async let second = queue.enqueue(m, body: body(2))
        let (a, b) = try await (first, second)
        // One of them queued it, the other found it queued: the same entry.
        #expect(Set([a, b].map(\.entry)).count == 1)
        #expect([a, b].filter { if case .queued = $0 { true } else { false } }.count == 1)
        #expect(await queue.pending(limit: 10).count == 1)
        #expect(await queue.counts().pending == 1)
    }

    @Test func compactionRemovesSettledSegmentsAndCarriesTheFewLiveOnes() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var q: [QueuedSubmission] = []
        let keepPending: Set<Int> = [3]
        let keepDead: Set<Int> = [40]
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: smallSegments(), logger: logger)
            for i in 0..<200 { q.append(try await queue.enqueueNew(metadata(i), body: body(i))) }
            for (i, s) in q.enumerated() where !keepPending.contains(i) {
                if keepDead.contains(i) {
                    try await queue.markDead(s.id, reason: "refused \(i)")
                } else {
                    try await queue.markDelivered(s.id, response: nil)
                }
            }
            let before = try queue.journal.segments()
            let report = try await queue.compact()
            let after = try queue.journal.segments()
            #expect(report.removedSegments.count == before.count - 1)
            #expect(report.carriedRecords == 2)
            #expect(after.count == 1 && after[0].isActive)
            // Changes go on after compaction and reads find the carried records.
            #expect(Array(try await queue.body(of: q[3].id)) == body(3))
            await queue.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, options: smallSegments(), logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.pending(limit: 10) == [q[3]])
        #expect(await queue.dead() == [DeadSubmission(submission: q[40], reason: "refused 40")])
        #expect(Array(try await queue.body(of: q[40].id)) == body(40))
        #expect(try await queue.requeue(q[40].id) == q[40])
        let next = try await queue.enqueueNew(metadata(500), body: body(500))
        #expect(next.id > q[199].id)
        #expect(await queue.pending(limit: 10) == [q[3], q[40], next])
    }

    @Test func compactionLeavesMostlyLiveSegmentsAlone() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let queue = try SubmissionQueue(directory: dir.path, options: smallSegments(), logger: logger)
        defer { queue.close(then: {}) }
        for i in 0..<100 { try await queue.enqueue(metadata(i), body: body(i)) }
        let before = try queue.journal.segments()
        let report = try await queue.compact()
        #expect(report.removedSegments.isEmpty && report.carriedRecords == 0)
        #expect(try queue.journal.segments() == before)
    }

    @Test func concurrentChangesDuringCompactionAreKept() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var q: [QueuedSubmission] = []
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: smallSegments(2048), logger: logger)
            for i in 0..<120 { q.append(try await queue.enqueueNew(metadata(i), body: body(i))) }
            for s in q.dropFirst(10) { try await queue.markDelivered(s.id, response: nil) }
            let first10 = Array(q.prefix(10))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { _ = try await queue.compact() }
                for (i, s) in first10.enumerated() {
                    group.addTask {
                        if i % 2 == 0 { try await queue.markDelivered(s.id, response: "\(i)") }
                    }
                }
                group.addTask { _ = try await queue.compact() }
                try await group.waitForAll()
            }
            await queue.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, options: smallSegments(2048), logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.pending(limit: 20) == q.prefix(10).enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
    }

    @Test func aFullQueueRefusesNewSubmissionsUntilCompactionFreesSpace() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var o = smallSegments(1024)
        o.journal.diskCap = 8192
        var accepted: [QueuedSubmission] = []
        var delivered = 0
        var refusal: StorageError?
        var late: QueuedSubmission?
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: o, logger: logger)
            for i in 0..<1000 {
                do { accepted.append(try await queue.enqueueNew(metadata(i), body: body(i))) } catch let e as StorageError { refusal = e; break }
            }
            #expect(refusal?.code == .journalFull)
            #expect(refusal?.message.contains(dir.path) == true)
            #expect(accepted.count > 10)
            // Nothing accepted was dropped, and the refused one is not there.
            #expect(await queue.pending(limit: 2000) == accepted)
            // A full queue still drains: the markers that settle submissions go over the cap.
            delivered = accepted.count - 3
            for s in accepted.prefix(delivered) { try await queue.markDelivered(s.id, response: nil) }
            try await queue.markDead(accepted[delivered].id, reason: "refused")
            #expect(try await queue.requeue(accepted[delivered].id) != nil)
            await #expect(throws: StorageError.self) { try await queue.enqueue(metadata(4000), body: body(4000)) }
            let report = try await queue.compact()
            #expect(!report.removedSegments.isEmpty)
            late = try await queue.enqueueNew(metadata(5000), body: body(5000))
            await queue.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, options: o, logger: logger)
        defer { queue.close(then: {}) }
        #expect(await queue.pending(limit: 2000) == Array(accepted.dropFirst(delivered)) + [try #require(late)])
    }

    /// The states a crash can leave a compaction in, rebuilt from copies of the segment files:
    /// after the live records were carried forward but before the removal checkpoint; after the
    /// checkpoint with none, or some, of the old segments unlinked.
    @Test(arguments: ["carried", "checkpointed", "halfUnlinked"], [false, true])
    func aRestartInTheMiddleOfCompactionLosesAndDuplicatesNothing(crashPoint: String, encrypted: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var q: [QueuedSubmission] = []
        let keepPending: Set<Int> = [2, 77, 150]
        let keepDead: Set<Int> = [41]
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: smallSegments(encrypted: encrypted), logger: logger)
            for i in 0..<200 { q.append(try await queue.enqueueNew(metadata(i), body: body(i))) }
            for (i, s) in q.enumerated() where !keepPending.contains(i) {
                if keepDead.contains(i) { try await queue.markDead(s.id, reason: "refused \(i)") } else { try await queue.markDelivered(s.id, response: nil) }
            }
            await queue.close()
        }
        let fm = FileManager.default
        var before: [String: Data] = [:]
        for name in try fm.contentsOfDirectory(atPath: dir.path) where name.hasPrefix("segment-") {
            before[name] = try Data(contentsOf: dir.appending(name))
        }
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: smallSegments(encrypted: encrypted), logger: logger)
            let report = try await queue.compact()
            #expect(report.carriedRecords > 0 && report.removedSegments.count > 2)
            await queue.close()
            // Put the removed segments back, as a crash before (or during) their removal leaves them.
            let removed = report.removedSegments.sorted()
            let restored = crashPoint == "halfUnlinked" ? Array(removed.suffix(removed.count / 2)) : removed
            for name in restored { try before[name]!.write(to: dir.appending(name)) }
            if crashPoint != "carried" {
                try Data(removed.joined(separator: "\n").utf8).write(to: dir.appending("checkpoint"))
            }
        }
        let expectedPending = q.enumerated().filter { keepPending.contains($0.offset) }.map(\.element)
        let expectedDead = [DeadSubmission(submission: q[41], reason: "refused 41")]
        for round in 0..<2 {
            let queue = try SubmissionQueue(directory: dir.path, options: smallSegments(encrypted: encrypted), logger: logger)
            #expect(await queue.pending(limit: 500) == expectedPending, "\(crashPoint), round \(round)")
            #expect(await queue.dead() == expectedDead)
            for i in keepPending.union(keepDead) { #expect(Array(try await queue.body(of: q[i].id)) == body(i)) }
            #expect(await queue.state(of: q[0].metadata.key) != .pending)
            if crashPoint != "carried" { #expect(!fm.fileExists(atPath: dir.appending("checkpoint").path)) }
            // A compaction after the restart settles the directory again.
            _ = try await queue.compact()
            await queue.close()
        }
        #expect(try fm.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("segment-") && $0.hasSuffix(".log") }.count <= 2)
    }

    /// Deliveries recorded concurrently (as the delivery worker does) while the queue tidies its
    /// slots: each mark must land on its own submission.
    @Test func concurrentDeliveriesAcrossTidyingMarkTheRightSubmissions() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var q: [QueuedSubmission] = []
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        for start in stride(from: 0, to: 9000, by: 500) {
            let batch = try await withThrowingTaskGroup(of: QueuedSubmission.self) { group in
                for i in start..<(start + 500) { group.addTask { try await queue.enqueueNew(metadata(i), body: body(i)) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            q += batch
        }
        q.sort { $0.id < $1.id }
        #expect(await queue.pending(limit: 10_000) == q)
        let kept = q.enumerated().filter { $0.offset % 97 == 0 }.map(\.element)
        let doomed = q.enumerated().filter { $0.offset % 97 != 0 }.map(\.element)
        for start in stride(from: 0, to: doomed.count, by: 256) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for s in doomed[start..<min(start + 256, doomed.count)] {
                    group.addTask { try await queue.markDelivered(s.id, response: "\(s.id)") }
                }
                try await group.waitForAll()
            }
        }
        #expect(await queue.pending(limit: 10_000) == kept)
        #expect(await queue.state(of: doomed.last!.metadata.key) == .delivered(response: "\(doomed.last!.id)"))
        for s in kept.prefix(20) { #expect(try await queue.body(of: s.id).count > 0) }
        await queue.close()
        let reopened = try SubmissionQueue(directory: dir.path, logger: logger)
        defer { reopened.close(then: {}) }
        #expect(await reopened.pending(limit: 10_000) == kept)
    }

    @Test func theSessionStaysOnDiskAndSurvivesCarryForward() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let session = UUID()
        var kept: QueuedSubmission?
        do {
            let queue = try SubmissionQueue(directory: dir.path, options: smallSegments(), logger: logger)
            for i in 0..<200 {
                var m = metadata(i)
                m.session = i == 5 ? session : nil
                let s = try await queue.enqueueNew(m, body: body(i))
                #expect(s.metadata.session == nil, "listings do not carry the session")
                if i == 5 { kept = s } else { try await queue.markDelivered(s.id, response: nil) }
            }
            let report = try await queue.compact()
            #expect(report.carriedRecords == 1)
            await queue.close()
        }
        let queue = try SubmissionQueue(directory: dir.path, options: smallSegments(), logger: logger)
        defer { queue.close(then: {}) }
        let id = try #require(kept).id
        #expect(try await queue.details(of: id).session == session)
        #expect(try await queue.details(of: id).stage == "common")
        #expect(Array(try await queue.body(of: id)) == body(5))
    }

    /// A cap smaller than the default 64 MiB segment: segments must rotate below it, or the active
    /// segment (never removed) would hold the queue full for good.
    @Test func aCapBelowTheSegmentSizeStillDrains() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        var o = SubmissionQueueOptions()
        o.journal.diskCap = 64 << 10
        let queue = try SubmissionQueue(directory: dir.path, options: o, logger: logger)
        defer { queue.close(then: {}) }
        var accepted: [QueuedSubmission] = []
        while true {
            do { accepted.append(try await queue.enqueueNew(metadata(accepted.count), body: body(accepted.count))) } catch { break }
        }
        #expect(accepted.count > 100)
        for s in accepted { try await queue.markDelivered(s.id, response: nil) }
        _ = try await queue.compact()
        #expect(queue.journal.diskBytes < 64 << 10)
        let next = try await queue.enqueueNew(metadata(9999), body: body(9999))
        #expect(await queue.pending(limit: 10) == [next])
    }

    /// Two pending keys with the same first four bytes: delivering one must not hide the other.
    @Test func deliveringAKeyDoesNotHideAnotherWithTheSamePrefix() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        defer { queue.close(then: {}) }
        var a = metadata(1), b = metadata(2)
        a.key = UUID(uuid: (1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))
        b.key = UUID(uuid: (1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2))
        let first = try await queue.enqueueNew(a, body: body(1))
        let second = try await queue.enqueueNew(b, body: body(2))
        try await queue.markDelivered(first.id, response: nil)
        #expect(await queue.state(of: b.key) == .pending)
        #expect(try await queue.enqueue(b, body: body(2)) == .alreadyQueued(second), "not queued twice")
        #expect(await queue.pending(limit: 10) == [second])
    }

    @Test func bodiesStayOnDiskAndTheSlotIsSmall() async throws {
        // The in-memory slot is fixed-size (the 1M-pending memory is measured in StorageBenchmark).
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let queue = try SubmissionQueue(directory: dir.path, logger: logger)
        defer { queue.close(then: {}) }
        let big = [UInt8](repeating: 0x41, count: 64 * 1024)
        let s = try await queue.enqueueNew(metadata(1), body: big)
        #expect(Array(try await queue.body(of: s.id)) == big)
        #expect(MemoryLayout<SubmissionQueue.Slot>.stride <= 56)
    }
}

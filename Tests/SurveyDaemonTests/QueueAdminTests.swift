import ControlAPI
import Entities
import Foundation
import Logging
import Networking
import Storage
@testable import SurveyDaemon
import SurveyTesting
import Testing

/// The queue's operator endpoints over the control socket, on the Storage queue: listing with
/// the worker's retry state, showing (answers only when asked), exporting, importing into another
/// daemon's queue, requeueing several, dropping, purging, and the bytes on disk in the status.
@Suite(.serialized, .timeLimit(.minutes(5))) struct QueueAdminTests {
    struct Daemon {
        let storage: SubmissionQueue
        let queue: StoredSubmissionQueue
        let worker: DeliveryWorker
        var backend: DaemonBackend
    }

    static func daemon(_ dir: String) throws -> Daemon {
        let storage = try SubmissionQueue(directory: dir, logger: Logger(label: "test"))
        let wakeup = DeliveryWakeup()
        let queue = StoredSubmissionQueue(queue: storage, wakeup: wakeup)
        let worker = DeliveryWorker(
            queue: MemoryDeliveryQueue(), uploader: ScriptedUploader(), settings: .init(maxInFlight: 1, backoff: { _, _ in .seconds(600) }, offlinePause: .seconds(3600)),
            wakeup: wakeup, logger: Logger(label: "test")) { _, _ in }
        let manager = SessionManager(
            journal: MemoryJournal(), definitions: FixtureDefinitions(offline: false), queue: RecordingQueue(),
            settings: .init(defaultLanguage: "en", idleTimeout: .seconds(600), deliveryWait: .milliseconds(1)), logger: Logger(label: "test"))
        var backend = DaemonBackend(version: "0", startedAt: Date(), sessions: manager, worker: worker, inspector: queue, connectivity: FixedConnectivity(state: .online))
        backend.queueAdministration = queue
        return Daemon(storage: storage, queue: queue, worker: worker, backend: backend)
    }

    static func enqueue(_ d: Daemon, _ n: Int) async throws -> UUID {
        let key = UUID()
        try await d.queue.enqueue(SubmissionRequest(session: UUID(), stage: "common", language: "en", body: Data(#"{"answers":{"email":"kim\#(n)@example.com"}}"#.utf8), idempotencyKey: key, definitionHash: "h", queuedAt: Date(timeIntervalSince1970: 1_800_000_000)))
        return key
    }

    /// Showing one submission reads its own record only: another's damaged record on disk does
    /// not stop it (it used to read every pending body to show one).
    @Test func showingOneSubmissionReadsOnlyItsRecord() async throws {
        let dir = try TemporaryDirectory(prefix: "qe")
        defer { dir.remove() }
        let d = try Self.daemon(dir.path)
        defer { d.storage.close(then: {}) }
        _ = try await Self.enqueue(d, 1)
        _ = try await Self.enqueue(d, 2)
        // Damage the first submission's body in its segment file.
        let segments = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("segment-") }
        var damaged = false
        for name in segments {
            let path = dir.appending(name).path
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let needle = Array("kim1@example.com".utf8)
            guard let at = (0 ... max(0, bytes.count - needle.count)).first(where: { Array(bytes[$0 ..< $0 + needle.count]) == needle }) else { continue }
            bytes[at] ^= 0xFF
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            damaged = true
        }
        try #require(damaged)
        try await withControlServer(maxRequestBytes: 65536, backend: d.backend) { path, _ in
            let shown = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/queue/2?answers=true")
            #expect(shown.status == 200 && shown.bodyText.contains("kim2@example.com"), "\(shown.status) \(shown.bodyText)")
            let broken = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/queue/1?answers=true")
            #expect(broken.status == 503 && broken.bodyText.contains("queue_unavailable"), "\(broken.status) \(broken.bodyText)")
        }
    }

    @Test func listShowExportAndImportIntoAnotherQueue() async throws {
        let dirs = (try TemporaryDirectory(prefix: "qa"), try TemporaryDirectory(prefix: "qb"))
        defer { dirs.0.remove(); dirs.1.remove() }
        let a = try Self.daemon(dirs.0.path)
        defer { a.storage.close(then: {}) }
        let keys = [try await Self.enqueue(a, 1), try await Self.enqueue(a, 2), try await Self.enqueue(a, 3)]
        let pending = try await a.queue.pending(limit: 10, excluding: [])
        try await a.queue.markDead(pending[2].id, reason: "HTTP 400: bad", outcome: .rejected)
        await a.worker.record(.transient(reason: "HTTP 503: busy", retryAfter: nil), for: pending[0], at: .zero)
        try await withControlServer(maxRequestBytes: 65536, backend: a.backend) { path, _ in
            let list = try JSONDecoder().decode(QueueListView.self, from: try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/queue").body)
            #expect(list.pending.map(\.id) == ["1", "2"] && list.dead.map(\.id) == ["3"])
            #expect(list.pending[0].attempts == 1 && list.pending[0].lastError == "HTTP 503: busy" && list.pending[0].nextRetryAt != nil)
            #expect(list.pending[1].attempts == 0 && list.pending[1].lastError == nil && list.pending[1].nextRetryAt == nil)
            #expect(list.dead[0].state == "dead" && list.dead[0].lastError == "HTTP 400: bad" && list.dead[0].outcome == "rejected")
            #expect(list.pending.map(\.idempotencyKey) == keys[..<2].map { $0.text(uppercase: false) })
            #expect(list.pending.allSatisfy { $0.body == nil && $0.session == nil })

            // Answers only when asked for.
            let shown = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/queue/2")
            #expect(shown.status == 200 && !shown.bodyText.contains("kim2@example.com"))
            #expect(try JSONDecoder().decode(QueueEntryView.self, from: shown.body).session != nil)
            let withAnswers = try JSONDecoder().decode(QueueEntryView.self, from: try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/queue/3?answers=true").body)
            #expect(withAnswers.state == "dead" && withAnswers.body == #"{"answers":{"email":"kim3@example.com"}}"#)
            for (target, status, code) in [("/v1/queue/9", 404, "no_such_submission"), ("/v1/queue/01", 404, "no_such_submission"), ("/v1/queue/1?answers=yes", 400, "bad_answers"), ("/v1/queue/export?state=all", 400, "bad_state")] {
                let reply = try await UnixHTTP.request(socket: path, method: "GET", target: target)
                #expect(reply.status == status && reply.bodyText.contains(code), "\(target): \(reply.bodyText)")
            }

            let export = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/queue/export?state=pending")
            #expect(export.status == 200 && export.headers["content-type"] == "application/x-ndjson")
            let lines = export.bodyText.split(separator: "\n").map(String.init)
            #expect(lines.count == 2)
            let exported = try lines.map { try JSONDecoder().decode(QueueExportLine.self, from: Data($0.utf8)) }
            #expect(exported.map(\.idempotencyKey) == keys[..<2].map { $0.text(uppercase: false) })
            #expect(exported[0].body == #"{"answers":{"email":"kim1@example.com"}}"# && exported[0].state == "pending")
            let dead = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/queue/export?state=dead")
            #expect(dead.bodyText.split(separator: "\n").count == 1 && dead.bodyText.contains("kim3@example.com"))

            // The same key back into this queue is refused, naming it.
            let again = try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/queue/import", body: lines[0])
            #expect(again.status == 409 && again.bodyText.contains("already_queued") && again.bodyText.contains(keys[0].text(uppercase: false)))

            // Into another daemon's queue: queued once, under the exported key.
            let b = try Self.daemon(dirs.1.path)
            defer { b.storage.close(then: {}) }
            try await withControlServer(maxRequestBytes: 65536, backend: b.backend) { other, _ in
                let imported = try await UnixHTTP.request(socket: other, method: "POST", target: "/v1/queue/import", body: lines[0])
                #expect(imported.status == 201, "\(imported.bodyText)")
                #expect(try JSONDecoder().decode(QueueEntryView.self, from: imported.body).idempotencyKey == keys[0].text(uppercase: false))
                let twice = try await UnixHTTP.request(socket: other, method: "POST", target: "/v1/queue/import", body: lines[0])
                #expect(twice.status == 409 && twice.bodyText.contains(keys[0].text(uppercase: false)))
                var bad = exported[0]
                bad.idempotencyKey = "nope"
                let invalid = try await UnixHTTP.request(socket: other, method: "POST", target: "/v1/queue/import", body: String(decoding: try JSONEncoder().encode(bad), as: UTF8.self))
                #expect(invalid.status == 400 && invalid.bodyText.contains("idempotencyKey"))
            }
            let moved = try await b.queue.pending(limit: 10, excluding: [])
            #expect(moved.map(\.metadata.key) == [keys[0]])
            let movedBody = try await b.queue.body(of: moved[0].id)
            let originalBody = try await a.queue.body(of: pending[0].id)
            #expect(movedBody == originalBody)
        }
    }

    @Test func requeueSeveralDropAndPurge() async throws {
        let dir = try TemporaryDirectory(prefix: "qd")
        defer { dir.remove() }
        var d = try Self.daemon(dir.path)
        for n in 1...4 { _ = try await Self.enqueue(d, n) }
        let pending = try await d.queue.pending(limit: 10, excluding: [])
        for s in pending { try await d.queue.markDead(s.id, reason: "HTTP 400", outcome: .unknown) }
        try await withControlServer(maxRequestBytes: 65536, backend: d.backend) { path, _ in
            for (body, status, code) in [("{}", 400, "body_invalid"), (#"{"all":true,"ids":["1"]}"#, 400, "body_invalid"), (#"{"ids":["1","9"]}"#, 404, "no dead letter 9; nothing was requeued")] {
                let reply = try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/requeue", body: body)
                #expect(reply.status == status && reply.bodyText.contains(code), "\(body): \(reply.bodyText)")
            }
            #expect(try await d.queue.deadLetters().count == 4)
            let some = try JSONDecoder().decode(RequeueManyReply.self, from: try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/requeue", body: #"{"ids":["1","2"]}"#).body)
            #expect(some.requeued.map(\.id) == ["1", "2"])
            let dropped = try await UnixHTTP.request(socket: path, method: "DELETE", target: "/v1/dead/3")
            #expect(dropped.status == 200)
            #expect(try JSONDecoder().decode(DeadLetterView.self, from: dropped.body).id == "3")
            for target in ["/v1/dead/3", "/v1/dead/1", "/v1/dead/x"] {
                let reply = try await UnixHTTP.request(socket: path, method: "DELETE", target: target)
                #expect(reply.status == 404 && reply.bodyText.contains("no_such_dead_letter"), "\(target)")
            }
            let rest = try JSONDecoder().decode(RequeueManyReply.self, from: try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/requeue", body: #"{"all":true}"#).body)
            #expect(rest.requeued.map(\.id) == ["4"])
            for s in try await d.queue.pending(limit: 10, excluding: []) { try await d.queue.markDelivered(s.id, nextTypeId: nil) }
            let status = try JSONDecoder().decode(StatusView.self, from: try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/status").body)
            #expect(status.queue.bytesOnDisk == d.storage.diskBytes && (status.queue.bytesOnDisk ?? 0) > 0)
            let purge = try JSONDecoder().decode(PurgeReply.self, from: try await UnixHTTP.request(socket: path, method: "POST", target: "/v1/purge").body)
            #expect(purge.bytesBefore == status.queue.bytesOnDisk && purge.bytesAfter < purge.bytesBefore && purge.carried == 0)
            let after = try JSONDecoder().decode(StatusView.self, from: try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/status").body)
            #expect(after.queue.bytesOnDisk == purge.bytesAfter)
        }
        // The drop holds across a restart.
        await d.storage.close()
        d = try Self.daemon(dir.path)
        defer { d.storage.close(then: {}) }
        let deadAfter = try await d.queue.deadLetters()
        let pendingAfter = try await d.queue.pending(limit: 10, excluding: [])
        #expect(deadAfter.isEmpty && pendingAfter.isEmpty)
    }

    /// An export larger than a page is streamed page after page: every line once, in order.
    @Test func anExportOfSeveralPagesHasEveryLineOnceInOrder() async throws {
        let dir = try TemporaryDirectory(prefix: "qe")
        defer { dir.remove() }
        let d = try Self.daemon(dir.path)
        defer { d.storage.close(then: {}) }
        let count = ControlServer.exportPageSize * 2 + 7
        var keys: [String] = []
        for i in 0 ..< count { keys.append(try await Self.enqueue(d, i).text(uppercase: false)) }
        try await withControlServer(maxRequestBytes: 65536, backend: d.backend) { path, _ in
            let export = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/queue/export")
            #expect(export.status == 200 && export.headers["transfer-encoding"]?.lowercased() == "chunked", "\(export.status) \(export.headers)")
            let lines = try export.bodyText.split(separator: "\n").map { try JSONDecoder().decode(QueueExportLine.self, from: Data($0.utf8)) }
            #expect(lines.map(\.idempotencyKey) == keys)
            #expect(export.bodyText.hasSuffix("\n"))
        }
    }

    /// A daemon's backend given no queue administration answers 404 on the queue's endpoints.
    @Test func aDaemonBackendWithoutAdministrationAnswersNoSuchEndpoint() async throws {
        let dir = try TemporaryDirectory(prefix: "qa")
        defer { dir.remove() }
        var d = try Self.daemon(dir.path)
        defer { d.storage.close(then: {}) }
        d.backend.queueAdministration = nil
        await #expect(throws: ControlError.self) { _ = try await d.backend.queue() }
        do { _ = try await d.backend.queue() } catch let error as ControlError {
            #expect(error.code == "no_such_endpoint")
        }
    }

    /// A backend without the queue's endpoints (a test fake) answers 404, not a crash.
    @Test func aBackendWithoutThemAnswersNoSuchEndpoint() async throws {
        try await withControlServer { path, _ in
            let reply = try await UnixHTTP.request(socket: path, method: "GET", target: "/v1/queue")
            #expect(reply.status == 404 && reply.bodyText.contains("no_such_endpoint"))
        }
    }
}

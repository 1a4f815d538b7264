import ControlAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hummingbird
import Logging
import NIOCore

extension ControlServer {
    /// The queue's operator endpoints (doc/control-api.md, "The queue").
    func addQueueRoutes(to v1: RouterGroup<ControlRequestContext>, backend: any ControlQueueBackend, limit: Int) {
        let logger = logger
        // The listing and the export grow with the queue: they are made on the concurrency pool,
        // not on the control server's event loop, where every other control request waits.
        v1.get("queue") { _, _ in try await onPool { try Self.json(await backend.queue()) } }
        v1.get("queue/export") { request, _ -> Response in
            let raw = request.uri.queryParameters.get("state") ?? "pending"
            guard let state = QueueExportState(rawValue: raw) else {
                throw ControlError.badRequest("bad_state", "state \(raw.debugDescription) is not one of pending, dead, delivered")
            }
            // Streamed a page at a time, so that a large queue is never in memory at once. The
            // first page is read before the reply starts: a queue that cannot be read is a 503.
            let first = try await onPool { try await backend.exportQueue(state, after: nil, limit: Self.exportPageSize) }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: ResponseBody { writer in
                var page = first
                while true {
                    try await writer.write(try Self.ndjson(page.lines))
                    guard let next = page.next else { break }
                    page = try await onPool { try await backend.exportQueue(state, after: next, limit: Self.exportPageSize) }
                }
                try await writer.finish(nil)
            })
        }
        v1.get("queue/:id") { request, context in
            let answers = request.uri.queryParameters.get("answers")
            guard answers == nil || answers == "true" || answers == "false" else {
                throw ControlError.badRequest("bad_answers", "answers must be true or false, not \(answers!.debugDescription)")
            }
            return try Self.json(await backend.queueEntry(id: Self.pathParameter("id", context), answers: answers == "true"))
        }
        v1.post("queue/import") { request, _ in
            let line = try await Self.decode(QueueExportLine.self, request, limit: limit, empty: nil)
            let entry = try await backend.importQueued(line)
            logger.notice("submission imported", metadata: ["submission": "\(entry.id)", "key": "\(entry.idempotencyKey)", "stage": "\(entry.stage)"])
            return try Self.json(entry, status: .created)
        }
        v1.post("requeue") { request, _ in
            let body = try await Self.decode(RequeueManyRequest.self, request, limit: limit, empty: nil)
            return try Self.json(await backend.requeue(body))
        }
        v1.delete("dead/:id") { _, context in
            let letter = try await backend.drop(deadLetter: Self.pathParameter("id", context))
            logger.notice("dead letter dropped", metadata: ["submission": "\(letter.id)", "key": "\(letter.idempotencyKey)", "stage": "\(letter.stage)"])
            return try Self.json(letter)
        }
        v1.post("purge") { _, _ in
            let reply = try await backend.purge()
            logger.notice("queue purged", metadata: ["bytesBefore": "\(reply.bytesBefore)", "bytesAfter": "\(reply.bytesAfter)"])
            return try Self.json(reply)
        }
    }

    /// Submissions per page of an export.
    static let exportPageSize = 512

    /// `lines` as NDJSON, each line ending in a newline.
    static func ndjson(_ lines: [QueueExportLine]) throws -> ByteBuffer {
        var out = ByteBuffer()
        for line in lines {
            out.writeBytes(try ndjsonEncoder.encode(line))
            out.writeInteger(UInt8(0x0A))
        }
        return out
    }

    /// One JSON object per line: no pretty printing, so no newline inside a line.
    static let ndjsonEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

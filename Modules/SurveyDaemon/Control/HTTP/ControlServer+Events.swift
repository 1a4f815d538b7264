import ControlAPI
import Foundation
import Hummingbird
import NIOCore

extension ControlServer {
    /// `GET /v1/events`: newline-delimited JSON, a `hello` line first, then each event as it
    /// happens, until the client goes away or the daemon stops.
    static func eventStream(_ backend: any ControlDeliveryBackend) async -> Response {
        let events = await backend.events()
        let hello = DaemonEvent(.hello, version: ProductVersion.current)
        let body = ResponseBody { writer in
            try await writer.write(line(hello))
            for await event in events {
                try await writer.write(line(event))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store"], body: body)
    }

    static func line(_ event: DaemonEvent) throws -> ByteBuffer {
        var buffer = ByteBuffer(bytes: try encoder.encode(event))
        buffer.writeInteger(UInt8(ascii: "\n"))
        return buffer
    }
}

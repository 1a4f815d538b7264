import ControlAPI
import Entities
import Foundation
import Hummingbird
import NIOCore

/// Replies and request bodies in JSON.
extension ControlServer {
    /// A path parameter, percent-decoded.
    static func pathParameter(_ name: String, _ context: ControlRequestContext) throws -> String {
        let raw = try context.parameters.require(name)
        return raw.removingPercentEncoding ?? raw
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        json(ByteBuffer(bytes: try encoder.encode(value)), status: status)
    }

    /// A body that writes itself (the replies sent on every answer): the same bytes as
    /// ``encoder`` gives, for less CPU.
    static func json(_ value: some Encodable & JSONOutputWritable, status: HTTPResponse.Status = .ok) throws -> Response {
        var out = JSONOutput(escapesSlashes: false)
        value.write(to: &out)
        return json(ByteBuffer(bytes: out.bytes), status: status)
    }

    static func json(_ body: ByteBuffer, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
    }

    /// Decodes a JSON body; an empty body gives `empty` when the endpoint allows it. `simple`,
    /// when given, reads the common shape of the body without `JSONDecoder` (nil for anything
    /// else, which `JSONDecoder` then decodes or names the error of; a `ByteBufferView` is
    /// contiguous, so the simple reader always gets to try).
    static func decode<T: Decodable>(_ type: T.Type, _ request: Request, limit: Int, empty: T?, simple: ((ByteBufferView) -> T?)? = nil) async throws -> T {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw bodyError(error, limit: limit)
        }
        if buffer.readableBytes == 0 {
            if let empty { return empty }
            throw ControlError.badRequest("body_missing", "this endpoint needs a JSON body; see doc/control-api.md")
        }
        if let simple, let value = simple(buffer.readableBytesView) { return value }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw ControlError.badRequest("body_invalid", "the JSON body is not valid: \(error.locatedDescription); see doc/control-api.md")
        }
    }
}

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The `{ "status": Int, "data": Payload }` wrapper around every survey server response.
public struct Envelope<Payload: Decodable & Sendable>: Decodable, Sendable {
    public var status: Int
    public var data: Payload

    /// Decodes an envelope from response bytes and returns its payload.
    ///
    /// - Throws: `ResponseDecodingError` naming what was wrong and where, when the bytes are
    ///   not JSON, the envelope or payload does not have the expected shape, or `status` is not 200.
    public static func payload(from bytes: Data, what: String) throws(ResponseDecodingError) -> Payload {
        let envelope: Envelope<Payload>
        do {
            envelope = try JSONDecoder().decode(Envelope<Payload>.self, from: bytes)
        } catch let error as DecodingError {
            throw ResponseDecodingError(what: what, detail: error.locatedDescription)
        } catch {
            throw ResponseDecodingError(what: what, detail: "\(error)")
        }
        guard envelope.status == 200 else {
            throw ResponseDecodingError(what: what, detail: "envelope status is \(envelope.status), expected 200")
        }
        return envelope.data
    }
}

/// A survey server response that could not be decoded.
public struct ResponseDecodingError: Error, Sendable, CustomStringConvertible {
    /// Stable code for logs and metrics.
    public static let code = "response_undecodable"
    /// What was being decoded, e.g. "questionnaire response" or "answers response".
    public var what: String
    /// What was wrong and where in the body.
    public var detail: String

    public init(what: String, detail: String) {
        self.what = what
        self.detail = detail
    }

    public var message: String {
        "the \(what) could not be decoded: \(detail). Check that the server URL points at a survey server that speaks the contract in doc/architecture.md."
    }

    public var description: String { message }
}

extension DecodingError {
    /// A one-line description naming the JSON path of the problem, e.g. `data.forms[2].name: missing`.
    public var locatedDescription: String {
        func path(_ codingPath: [any CodingKey]) -> String {
            var text = ""
            for key in codingPath {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
            return text.isEmpty ? "(top level)" : text
        }
        switch self {
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return "\(parent == "(top level)" ? "" : parent + ".")\(key.stringValue): missing"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(Self.describe(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(Self.describe(type)), found null"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not valid JSON" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(self)"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a bool"
        case is Int.Type, is Double.Type: "a number"
        default:
            String(describing: type).hasPrefix("Array") ? "a list" : "an object"
        }
    }
}

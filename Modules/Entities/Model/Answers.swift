#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One answer as it is uploaded, with the JSON type the server expects for its form type.
public enum AnswerValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `text`, `radio` and `radioWithInput` answers: a JSON string.
    case string(String)
    /// `number` answers: a JSON number.
    case number(Double)
    /// `radioNumber` scores: a JSON integer.
    case integer(Int)
    /// `checkbox` answers: a JSON list of option values.
    case list([String])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode([String].self) {
            self = .list(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "an answer must be a string, a number or a list of strings")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .list(let value): try container.encode(value)
        }
    }

    /// The answer as a JSON value, for comparisons with rule targets.
    public var json: JSONValue {
        switch self {
        case .string(let value): .string(value)
        case .number(let value): .number(value)
        case .integer(let value): .number(Double(value))
        case .list(let values): .array(values.map(JSONValue.string))
        }
    }

    /// The answer as a number, when it is one.
    public var numericValue: Double? {
        switch self {
        case .number(let value): value
        case .integer(let value): Double(value)
        case .string, .list: nil
        }
    }

    public var description: String { json.jsonText }
}

/// The body of `POST /api/answers/{typeID}`: `{"answers": {"<name>": <value>, ...}}`.
public struct AnswersUpload: Sendable, Hashable, Codable {
    public var answers: [String: AnswerValue]

    public init(answers: [String: AnswerValue]) {
        self.answers = answers
    }

    /// The body as bytes, keys sorted: the same answers always give the same bytes,
    /// so a replay with one idempotency key carries an identical body.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, finite numbers and lists of strings cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Decodes an upload body.
    public static func decode(_ body: Data) throws(ResponseDecodingError) -> AnswersUpload {
        do {
            return try JSONDecoder().decode(AnswersUpload.self, from: body)
        } catch let error as DecodingError {
            throw ResponseDecodingError(what: "answers body", detail: error.locatedDescription)
        } catch {
            throw ResponseDecodingError(what: "answers body", detail: "\(error)")
        }
    }
}

/// The payload of a `POST /api/answers/{typeID}` response.
public struct AnswersResult: Sendable, Hashable, Codable {
    /// False is a rejection by the server: retrying the same body will not help.
    public var isSuccess: Bool
    /// The next stage to ask, when the survey goes on.
    public var nextTypeId: String?

    public init(isSuccess: Bool, nextTypeId: String? = nil) {
        self.isSuccess = isSuccess
        self.nextTypeId = nextTypeId
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        isSuccess = try container.decode(Bool.self, forKey: .isSuccess)
        // Some servers send the next stage as a number; an empty string means none.
        if let text = try? container.decodeIfPresent(String.self, forKey: .nextTypeId) {
            nextTypeId = text.isEmpty ? nil : text
        } else if let number = try? container.decodeIfPresent(Int.self, forKey: .nextTypeId) {
            nextTypeId = String(number)
        } else if container.contains(.nextTypeId), try !container.decodeNil(forKey: .nextTypeId) {
            throw DecodingError.typeMismatch(String.self, .init(codingPath: container.codingPath + [CodingKeys.nextTypeId], debugDescription: "nextTypeId must be a string"))
        } else {
            nextTypeId = nil
        }
    }

    /// Decodes a `POST /api/answers/{typeID}` response (the `{status, data}` envelope).
    public static func decode(response: Data) throws(ResponseDecodingError) -> AnswersResult {
        try Envelope<AnswersResult>.payload(from: response, what: "answers response")
    }

    /// Encodes this result inside a `{status: 200, data: ...}` envelope, as a server sends it.
    public func encodedResponse() -> Data {
        struct Wire: Encodable { var status = 200; var data: AnswersResult }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(Wire(data: self))) ?? Data()
    }
}

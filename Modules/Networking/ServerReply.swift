public import Entities
import Foundation

/// Tells the survey server's replies from replies something else sent in its place (a captive
/// portal's login page, a proxy's error page): only a body in the contract's `{status, data}`
/// envelope is the server's (`doc/survey-server-api.md`). The contract names no content type, so
/// none is required; the content type only tells a garbled reply of the server (declared JSON
/// that does not parse) from a page of someone else's.
public enum ServerReply {
    /// What a 2xx reply to an upload came to.
    public enum Upload: Sendable, Hashable {
        /// The server's answers envelope.
        case answers(AnswersResult)
        /// The server's own reply whose outcome cannot be read: a JSON envelope whose payload
        /// does not decode, or a body declared as JSON that is not JSON. The upload may or may not
        /// have been stored.
        case undecodable(detail: String)
        /// Not the survey server: a body that is not the envelope (HTML, `{}`, nothing).
        case notTheServer(description: String)
    }

    /// Sorts a 2xx reply to `POST /api/answers/{typeID}`.
    public static func upload(_ response: TransportResponse) -> Upload {
        do {
            return .answers(try AnswersResult.decode(response: response.body))
        } catch {
            switch shape(of: response) {
            case .envelope, .declaredJSON: return .undecodable(detail: error.detail)
            case .other(let description): return .notTheServer(description: description)
            }
        }
    }

    /// Whether a 2xx reply to `GET /api/question/{typeID}` is the server's questionnaire envelope
    /// (its contents are checked later, by the definition checks); nil when it is, else what it is.
    public static func questionnaireMismatch(_ response: TransportResponse) -> String? {
        switch shape(of: response) {
        case .envelope: nil
        case .declaredJSON(let detail): "a body declared as JSON that is not the questionnaire envelope (\(detail))"
        case .other(let description): description
        }
    }

    /// Whether a 4xx reply (other than 408 and 429, which are transient whoever sent them) is the
    /// survey server's own refusal: nil when its body is a JSON object with at least one member
    /// (the envelope, or an error object such as `{"message": "…"}`), else what it is. A page in
    /// HTML, an empty body, `{}` or any other JSON value is something in the server's way (a
    /// portal's or a proxy's `403`/`404` page), never a verdict on the request.
    public static func refusalMismatch(_ response: TransportResponse) -> String? {
        if case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: response.body), !object.isEmpty { return nil }
        switch shape(of: response) {
        case .envelope: return nil
        case .declaredJSON(let detail): return "\(response.status) declared as JSON: \(detail)"
        case .other(let description): return description
        }
    }

    enum Shape {
        /// A JSON object with a numeric `status` and an object `data`.
        case envelope
        /// Declared `application/json` (or `+json`), not empty, but not a JSON object at all.
        case declaredJSON(String)
        /// Anything else, described for the operator.
        case other(String)
    }

    static func shape(of response: TransportResponse) -> Shape {
        let type = response.headers["content-type"].map { $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? "" }
        let described = "\(response.status) \(type ?? "with no content type")"
        if response.body.isEmpty { return .other("\(described) with an empty body") }
        let value = try? JSONDecoder().decode(JSONValue.self, from: response.body)
        if case .object(let object)? = value {
            if case .number? = object["status"], case .object? = object["data"] { return .envelope }
            let keys = object.keys.sorted().prefix(5).joined(separator: ", ")
            return .other("\(described): a JSON object without the {status, data} envelope (keys: \(keys.isEmpty ? "none" : keys))")
        }
        let isJSON = type.map { $0 == "application/json" || $0.hasSuffix("+json") } ?? false
        if isJSON, value == nil {
            return .declaredJSON("not valid JSON: \(response.body.count) bytes")
        }
        let start = String(decoding: response.body.prefix(60), as: UTF8.self)
            .replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespaces)
        return .other("\(described): \(response.body.count) bytes beginning \"\(start)\"")
    }
}

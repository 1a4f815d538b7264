import Hummingbird
import NIOCore
import NIOHTTP1

extension ControlServer {
    /// Why a request body could not be read: too large (413), cut short or malformed (400), or not
    /// received within the read timeout (408).
    static func bodyError(_ error: any Error, limit: Int) -> ControlError {
        switch error {
        case is NIOTooManyBytesError:
            return ControlError(status: 413, code: "body_too_large", "the request body is larger than \(limit) bytes; send a smaller body")
        case HTTPParserError.invalidEOFState:
            return .badRequest("body_incomplete", "the request body is incomplete: the connection was closed before the whole body (its Content-Length, or its last chunk) was received; send the whole body")
        case let error as HTTPParserError:
            return .badRequest("body_malformed", "the request body is malformed (\(error)); send a body of exactly Content-Length bytes or valid chunks")
        case let error as ControlReadTimeout:
            return ControlError(status: 408, code: "request_timeout", "the request body was not received within \(error.timeout); send the whole request at once")
        default:
            return .badRequest("body_incomplete", "the request body is incomplete: it could not be read (\(error)); send the whole body")
        }
    }
}

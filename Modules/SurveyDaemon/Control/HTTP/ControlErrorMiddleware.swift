import Hummingbird
import Logging

/// Makes every error a ``ControlError``, so clients always get `{"error": {...}}`: a session error
/// gets the status and code its case maps to (`ControlError+SessionError.swift`), the router's
/// own errors a code of their own, anything else `500 internal` (and a log line). A
/// ``ControlError`` goes on as it is: it is an `HTTPResponseError` and writes its own reply.
struct ControlErrorMiddleware: RouterMiddleware {
    typealias Context = ControlRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ControlError {
            throw error
        } catch let error as SessionError {
            throw ControlError(error)
        } catch let error as HTTPError {
            throw Self.controlError(error, request: request)
        } catch {
            context.logger.error("control request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            throw ControlError(status: 500, code: "internal", "the daemon could not handle the request: \(error)")
        }
    }

    /// The router's errors: no route (`no_such_endpoint`), a body too large, or another status.
    static func controlError(_ error: HTTPError, request: Request) -> ControlError {
        switch error.status {
        case .notFound:
            .notFound("no_such_endpoint", "\(request.method) \(request.uri.path) is not an endpoint of the control API; see doc/control-api.md")
        case .contentTooLarge:
            ControlError(status: 413, code: "body_too_large", "the request body is too large; send a smaller body")
        default:
            ControlError(status: error.status.code, code: "http_error", error.body ?? error.status.reasonPhrase)
        }
    }
}

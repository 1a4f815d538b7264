import ControlAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import Hummingbird
import NIOCore

/// A control error writes its own reply (Hummingbird's router turns a thrown `HTTPResponseError`
/// into its response): its status, and `{"error": {"code": …, "message": …}}` with the session
/// as it stands when the error carries one.
extension ControlError: HTTPResponseError {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response
    }

    /// The reply, for callers outside a router (the connection's own 408).
    var response: Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
    }

    var body: ByteBuffer {
        ByteBuffer(bytes: (try? ControlServer.encoder.encode(ErrorReply(code: code, message: message, session: session))) ?? Data())
    }
}

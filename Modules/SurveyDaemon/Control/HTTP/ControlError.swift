public import ControlAPI
public import Hummingbird

/// An error the control API reports to its client as `{"error": {"code", "message"}}` (with
/// `"session"` beside `"error"` when it carries one).
public struct ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status of the reply.
    public var status: HTTPResponse.Status
    /// Stable, for scripts and logs.
    public var code: String
    /// What went wrong and what to do.
    public var message: String
    /// The session the error is about, as it stands now, sent along when the client needs it
    /// to go on (`question_changed`: the question now asked).
    public var session: SessionView?

    public init(status: Int, code: String, _ message: String, session: SessionView? = nil) {
        self.status = HTTPResponse.Status(code: status)
        self.code = code
        self.message = message
        self.session = session
    }

    public var description: String { "\(code): \(message)" }

    public static func badRequest(_ code: String, _ message: String) -> ControlError { ControlError(status: 400, code: code, message) }
    public static func notFound(_ code: String, _ message: String) -> ControlError { ControlError(status: 404, code: code, message) }
    public static func conflict(_ code: String, _ message: String) -> ControlError { ControlError(status: 409, code: code, message) }
    public static func unavailable(_ code: String, _ message: String) -> ControlError { ControlError(status: 503, code: code, message) }
}

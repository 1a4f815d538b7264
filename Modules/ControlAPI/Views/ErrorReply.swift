#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The body of every error reply: `{"error": {"code": ..., "message": ...}}`, and for errors
/// about a session's progress (`question_changed`) the session as it stands, `"session": {...}`.
public struct ErrorReply: Sendable, Hashable, Codable {
    public struct Detail: Sendable, Hashable, Codable {
        /// Stable, for scripts.
        public var code: String
        /// What went wrong and what to do.
        public var message: String
    }

    public var error: Detail
    /// The session the error is about, where it stands now; absent for most errors.
    public var session: SessionView?

    public init(code: String, message: String, session: SessionView? = nil) {
        error = Detail(code: code, message: message)
        self.session = session
    }
}

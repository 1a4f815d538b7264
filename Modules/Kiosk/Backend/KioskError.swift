/// A domain error of the session logic, as the kiosk pages need to tell them apart.
///
/// The kiosk maps each kind to a page at its own edge (``KioskApplication``): an unknown or
/// closed session sends the browser back to the welcome screen, `unavailable` shows a "not
/// available right now" page. The message is logged, never shown: it may name operator tools.
public struct KioskError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The backend knows no session of that id (it was never started, or is forgotten).
        case noSuchSession = "no_such_session"
        /// The session is closed (answered to the end, screened out, abandoned).
        case sessionClosed = "session_closed"
        /// The session no longer asks the question the request was about.
        case questionChanged = "question_changed"
        /// The session logic cannot serve the request now (storage or definitions failing).
        case unavailable
    }

    public var kind: Kind
    /// What went wrong and what an operator can do, for the log.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// A stable code for logs and metrics.
    public var code: String { kind.rawValue }

    public var description: String { "\(code): \(message)" }
}

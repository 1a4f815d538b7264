import Entities
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why the session manager refused a request or could not carry it out, in the sessions' own
/// terms: a stable ``code`` for a front end to act on, a ``message`` saying what went wrong and
/// what to do, and the ``session`` as it stands when the caller needs it to go on.
///
/// Nothing here is HTTP: the control server maps each code to its status and wire code in one
/// place (`ControlError+SessionError.swift`), and another front end maps the same codes to its
/// own replies.
public struct SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, stable for front ends, logs and tests.
    public enum Code: Sendable, Hashable, CaseIterable {
        /// The language asked for is not one surveyd knows.
        case badLanguage
        /// The answer names a question position below 1.
        case badPosition
        /// No session has the id given.
        case noSuchSession
        /// No id was given and no session is open.
        case noOpenSession
        /// No id was given and more than one session is open.
        case severalOpen
        /// The session is not asking a question (complete, or closed).
        case notAsking
        /// The session was closed (idle too long) or retired meanwhile.
        case sessionClosed
        /// The answer names a question the session no longer asks, and is not its last answer sent again.
        case questionChanged
        /// The journal cannot record the change, so it was not made.
        case journalUnavailable
        /// The completed stage is recorded but could not be queued; housekeeping queues it later.
        case queueFailed
        /// The stage's questionnaire cannot be loaded now.
        case definitionUnavailable
        /// The stage's questionnaire has errors.
        case definitionInvalid
        /// The survey server has no such stage.
        case noSuchStage
        /// An event does not fit its session: the journal and the session disagree.
        case replayMismatch
    }

    public var code: Code
    /// What went wrong and what to do.
    public var message: String
    /// The session as it stands now, when the caller needs it to go on (``Code/questionChanged``).
    public var session: Session?

    public init(_ code: Code, _ message: String, session: Session? = nil) {
        self.code = code
        self.message = message
        self.session = session
    }

    public var description: String { "SessionError.\(code): \(message)" }
}

extension SessionError {
    static func noSuchSession(_ id: String) -> SessionError {
        SessionError(.noSuchSession, "no session \(shown(id)); `surveyctl status` lists the open sessions")
    }

    static func retired(_ id: UUID) -> SessionError {
        SessionError(.sessionClosed, "session \(id.text(uppercase: false)) was closed and retired; start a new one with `surveyctl start`")
    }

    static func journalUnavailable(_ error: any Error) -> SessionError {
        SessionError(.journalUnavailable, "the answer could not be saved durably (\(error)), so it was not accepted; check `surveyctl status` and the state directory, then answer again")
    }

    static func replayMismatch(_ error: SessionReplayError) -> SessionError {
        SessionError(.replayMismatch, error.description)
    }

    /// An id from a client as a message shows it: as it came when it is short and printable,
    /// else quoted with its control characters escaped and cut at 80 characters.
    static func shown(_ id: String) -> String {
        if id.count <= 80, !id.isEmpty, id.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control && $0 != " " }) { return id }
        return String(id.prefix(80)).debugDescription + (id.count > 80 ? "…" : "")
    }
}

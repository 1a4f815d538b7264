import Entities
import Foundation

/// A change to a session, in the order it happened. The daemon journals each event before it
/// acknowledges the change, and rebuilds sessions on start by replaying them.
public enum SessionEvent: Sendable, Hashable, Codable {
    /// A session began a stage: the first one, or a follow-up the server named.
    case stageStarted(session: UUID, stage: String, language: String, definitionHash: String, at: Date)
    /// An answer passed validation and was accepted.
    case answerAccepted(session: UUID, form: String, value: AnswerValue)
    /// An optional form was skipped.
    case answerSkipped(session: UUID, form: String)
    /// Every form of the stage is answered; its upload is queued under `idempotencyKey`.
    case stageCompleted(session: UUID, stage: String, idempotencyKey: UUID, at: Date)
    /// The session ended with an outcome.
    case closed(session: UUID, outcome: SessionOutcome, at: Date)
    /// A `queued` session's upload was delivered later and the server named a follow-up stage.
    case followUpNamed(session: UUID, stage: String, at: Date)

    /// When it happened, for the events that record a time.
    public var time: Date? {
        switch self {
        case .stageStarted(_, _, _, _, let at), .stageCompleted(_, _, _, let at), .closed(_, _, let at), .followUpNamed(_, _, let at):
            at
        case .answerAccepted, .answerSkipped:
            nil
        }
    }

    /// The session the event belongs to.
    public var session: UUID {
        switch self {
        case .stageStarted(let id, _, _, _, _), .answerAccepted(let id, _, _), .answerSkipped(let id, _),
             .stageCompleted(let id, _, _, _), .closed(let id, _, _), .followUpNamed(let id, _, _):
            id
        }
    }
}

/// How a session ended.
public enum SessionOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every stage was delivered and the server named no further stage.
    case thanks
    /// A screening rule found the respondent not eligible; nothing was uploaded.
    case noTarget = "no_target"
    /// The last stage is queued for delivery; the respondent was not kept waiting.
    case queued
    /// Idle longer than the configured timeout; its answers are not uploaded.
    case abandoned
}

extension SessionEvent: JSONOutputWritable {
    /// The event as the synthesized `Codable` conformance writes it through a default
    /// `JSONEncoder` (`/` escaped, dates as seconds since 2001), keys in declaration order where
    /// the encoder orders them at random: the session journal's record format, which
    /// `SessionTests` checks against the encoder's.
    public func write(to out: inout JSONOutput) {
        out.object { out in
            switch self {
            case .stageStarted(let session, let stage, let language, let definitionHash, let at):
                out.key("stageStarted")
                out.object { out in
                    out.key("session")
                    out.string(session.text(uppercase: true))
                    out.key("stage")
                    out.string(stage)
                    out.key("language")
                    out.string(language)
                    out.key("definitionHash")
                    out.string(definitionHash)
                    out.key("at")
                    out.number(at.timeIntervalSinceReferenceDate)
                }
            case .answerAccepted(let session, let form, let value):
                out.key("answerAccepted")
                out.object { out in
                    out.key("session")
                    out.string(session.text(uppercase: true))
                    out.key("form")
                    out.string(form)
                    out.key("value")
                    value.write(to: &out)
                }
            case .answerSkipped(let session, let form):
                out.key("answerSkipped")
                out.object { out in
                    out.key("session")
                    out.string(session.text(uppercase: true))
                    out.key("form")
                    out.string(form)
                }
            case .stageCompleted(let session, let stage, let idempotencyKey, let at):
                out.key("stageCompleted")
                out.object { out in
                    out.key("session")
                    out.string(session.text(uppercase: true))
                    out.key("stage")
                    out.string(stage)
                    out.key("idempotencyKey")
                    out.string(idempotencyKey.text(uppercase: true))
                    out.key("at")
                    out.number(at.timeIntervalSinceReferenceDate)
                }
            case .closed(let session, let outcome, let at):
                out.key("closed")
                out.object { out in
                    out.key("session")
                    out.string(session.text(uppercase: true))
                    out.key("outcome")
                    out.string(outcome.rawValue)
                    out.key("at")
                    out.number(at.timeIntervalSinceReferenceDate)
                }
            case .followUpNamed(let session, let stage, let at):
                out.key("followUpNamed")
                out.object { out in
                    out.key("session")
                    out.string(session.text(uppercase: true))
                    out.key("stage")
                    out.string(stage)
                    out.key("at")
                    out.number(at.timeIntervalSinceReferenceDate)
                }
            }
        }
    }
}

public import Entities
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A change to a session, in the order it happened. The daemon journals each event before it
/// acknowledges the change, and rebuilds sessions on start by replaying them.
public enum SessionEvent: Sendable, Hashable, Codable {
    /// A session began a stage: the first one, or a follow-up the server named.
    case stageStarted(session: UUID, stage: String, language: String, definitionHash: String, at: Date)
    /// An answer passed validation and was accepted.
    case answerAccepted(session: UUID, form: String, value: AnswerValue)
    /// An optional form was skipped (withdrawing the answer given before going back to it).
    case answerSkipped(session: UUID, form: String)
    /// The respondent went back to the previous form of the stage, `form`; its answer stays until
    /// it is answered again or skipped.
    case wentBack(session: UUID, form: String, at: Date)
    /// Every form of the stage is answered; its upload is queued under `idempotencyKey`. `quality`
    /// is what the daemon measured of the stage and the flags judged from it (none when data
    /// quality is off, or from an older daemon); an erasure removes it with the answers.
    case stageCompleted(session: UUID, stage: String, idempotencyKey: UUID, at: Date, quality: StageQuality? = nil)
    /// The session ended with an outcome.
    case closed(session: UUID, outcome: SessionOutcome, at: Date)
    /// A `queued` session's upload was delivered later and the server named a follow-up stage.
    case followUpNamed(session: UUID, stage: String, at: Date)
    /// The respondent's answers of the current stage were erased: the session stands at form
    /// `position` (from 0) with no answers. An erasure writes it in place of a closed session's
    /// answer events (`answerAccepted`, `answerSkipped`, `wentBack`), so the session can still be
    /// shown while nothing the respondent typed stays in the journal.
    case answersErased(session: UUID, position: Int)
    /// The wall clock was stepped while the session was open: `at` is its last activity on the
    /// new wall clock (the time of the step less how long the session had been idle, on the
    /// monotonic clock), so that a restart counts its idle time from there and not from a date
    /// the step made seem far older (or newer) than it was.
    case active(session: UUID, at: Date)
    /// The respondent agreed to the kiosk's consent notice of this `version` (its content's
    /// digest) before the first question; journaled with the session's first stage.
    case consentGiven(session: UUID, version: String)

    /// When it happened, for the events that record a time.
    public var time: Date? {
        switch self {
        case .stageStarted(_, _, _, _, let at), .stageCompleted(_, _, _, let at, _), .closed(_, _, let at), .followUpNamed(_, _, let at),
             .wentBack(_, _, let at), .active(_, let at):
            at
        case .answerAccepted, .answerSkipped, .answersErased, .consentGiven:
            nil
        }
    }

    /// The session the event belongs to.
    public var session: UUID {
        switch self {
        case .stageStarted(let id, _, _, _, _), .answerAccepted(let id, _, _), .answerSkipped(let id, _), .wentBack(let id, _, _),
             .stageCompleted(let id, _, _, _, _), .closed(let id, _, _), .followUpNamed(let id, _, _), .answersErased(let id, _), .active(let id, _),
             .consentGiven(let id, _):
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
        switch self {
        case .stageStarted(let session, let stage, let language, let definitionHash, let at):
            Self.write(&out, "stageStarted", session) { out in
                out.member("stage", stage)
                out.member("language", language)
                out.member("definitionHash", definitionHash)
                Self.time(at, to: &out)
            }
        case .answerAccepted(let session, let form, let value):
            Self.write(&out, "answerAccepted", session) { out in
                out.member("form", form)
                out.key("value")
                value.write(to: &out)
            }
        case .answerSkipped(let session, let form):
            Self.write(&out, "answerSkipped", session) { out in
                out.member("form", form)
            }
        case .wentBack(let session, let form, let at):
            Self.write(&out, "wentBack", session) { out in
                out.member("form", form)
                Self.time(at, to: &out)
            }
        case .stageCompleted(let session, let stage, let idempotencyKey, let at, let quality):
            Self.write(&out, "stageCompleted", session) { out in
                out.member("stage", stage)
                out.member("idempotencyKey", idempotencyKey.text(uppercase: true))
                Self.time(at, to: &out)
                if let quality {
                    out.key("quality")
                    quality.write(to: &out)
                }
            }
        case .closed(let session, let outcome, let at):
            Self.write(&out, "closed", session) { out in
                out.member("outcome", outcome.rawValue)
                Self.time(at, to: &out)
            }
        case .followUpNamed(let session, let stage, let at):
            Self.write(&out, "followUpNamed", session) { out in
                out.member("stage", stage)
                Self.time(at, to: &out)
            }
        case .answersErased(let session, let position):
            Self.write(&out, "answersErased", session) { out in
                out.member("position", position)
            }
        case .active(let session, let at):
            Self.write(&out, "active", session) { out in
                Self.time(at, to: &out)
            }
        case .consentGiven(let session, let version):
            Self.write(&out, "consentGiven", session) { out in
                out.member("version", version)
            }
        }
    }

    /// `{"<case>":{"session":"<UUID>", <rest>}}`, as synthesized `Codable` writes a case.
    private static func write(_ out: inout JSONOutput, _ name: String, _ session: UUID, rest: (inout JSONOutput) -> Void) {
        out.object { out in
            out.key(name)
            out.object { out in
                out.member("session", session.text(uppercase: true))
                rest(&out)
            }
        }
    }

    /// The `at` member: a date as seconds since 2001, `JSONEncoder`'s default.
    private static func time(_ date: Date, to out: inout JSONOutput) {
        out.key("at")
        out.number(date.timeIntervalSinceReferenceDate)
    }
}

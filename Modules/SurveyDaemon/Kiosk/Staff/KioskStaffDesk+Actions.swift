import Foundation
import ControlAPI
public import Kiosk
import Logging
import Synchronization

/// What staff (on the staff screen) and the operator (`surveyctl`, the control API) do.
extension KioskStaffDesk {
    /// Who acted: the kiosk's staff screen or the control API.
    public enum Actor: String, Sendable {
        case staff
        case `operator`
    }

    /// Takes the kiosk out of service: no kiosk session starts until ``setInService(by:)``;
    /// the control API's sessions are not affected. A new message replaces the old one.
    /// Throws ``KioskStaffError/Code/notKept``, the kiosk as it was, when the state cannot be
    /// written (it would not survive a restart).
    public func setOutOfService(message: String?, by actor: Actor) async throws(KioskStaffError) {
        let message = try Self.checkMessage(message)
        let since = wallNow()
        let before = state.withLock { state in
            defer {
                state.outOfService = KioskStaffRecord.OutOfService(message: message, since: state.outOfService?.since ?? since)
                state.version += 1
            }
            return state.outOfService
        }
        try await keep { $0.outOfService = before }
        metrics?.outOfService(true)
        announce("out_of_service", by: actor.rawValue, message.map { ["message": "\($0)"] } ?? [:])
    }

    /// Puts the kiosk back in service; throws ``KioskStaffError/Code/notKept`` as
    /// ``setOutOfService(message:by:)`` does.
    public func setInService(by actor: Actor) async throws(KioskStaffError) {
        let before = state.withLock { state in
            defer {
                state.outOfService = nil
                state.version += 1
            }
            return state.outOfService
        }
        try await keep { $0.outOfService = before }
        metrics?.outOfService(false)
        announce("in_service", by: actor.rawValue, ["wasOutOfService": "\(before != nil)"])
    }

    /// Writes the state as changed; when that fails, undoes the change with `undo` (the file
    /// still holds the state before it) and throws ``KioskStaffError/Code/notKept``.
    func keep(undo: (inout State) -> Void) async throws(KioskStaffError) {
        guard await persist() else {
            state.withLock { state in
                undo(&state)
                state.version += 1
            }
            changes.signal()
            throw KioskStaffError(
                "The kiosk's state cannot be kept: \(directory)/\(KioskStaffRecord.fileName) cannot be written (see the log; a full disk?). Nothing was changed; free space in the state directory and try again.",
                code: .notKept)
        }
    }

    /// Whether `kioskSurveys` lists `stage`.
    func isListed(_ stage: String) -> Bool {
        state.withLock { $0.lists(stage) }
    }

    /// Makes `stage` the survey kiosk respondents start, when `kioskSurveys` lists it.
    public func chooseSurvey(_ stage: String, by actor: Actor) async throws(KioskStaffError) {
        let chosen = state.withLock { state -> Result<String?, KioskStaffError> in
            guard state.lists(stage) else {
                let listed = state.surveys.map(\.stage)
                let choices = listed.isEmpty ? "none is set (kioskSurveys)" : "the surveys allowed are \(listed.joined(separator: ", "))"
                return .failure(KioskStaffError("\"\(stage.prefix(64))\" is not one of the kiosk's surveys; \(choices)"))
            }
            defer {
                state.survey = stage
                state.version += 1
            }
            return .success(state.survey)
        }
        let before = try chosen.get()
        try await keep { $0.survey = before }
        announce("survey_switched", by: actor.rawValue, ["stage": "\(stage)"])
    }

    /// Checks a PIN typed on the staff screen. While locked the PIN is not checked; a wrong one
    /// counts towards the lockout; one check at a time (a second one meanwhile is `busy`).
    public func verify(pin: String) async -> StaffPinVerdict {
        enum Start { case off, locked(Duration), busy, check(StaffPinHash) }
        let start = state.withLock { state -> Start in
            guard let pin = state.pin else { return .off }
            if let remaining = state.lockout.remaining(at: now()) { return .locked(remaining) }
            guard !state.verifying else { return .busy }
            state.verifying = true
            return .check(pin)
        }
        let hash: StaffPinHash
        switch start {
        case .off: return .off
        case .busy: return .busy
        case .locked(let remaining): return .locked(seconds: Self.wholeSeconds(remaining))
        case .check(let found): hash = found
        }
        let right = await matches(hash, pin)
        let at = now()
        let (verdict, lockout) = state.withLock { state -> (StaffPinVerdict, Duration?) in
            state.verifying = false
            state.version += 1
            if right {
                state.lockout.reset()
                return (.accepted, nil)
            }
            let lockout = state.lockout.failed(at: at)
            return (lockout.map { .locked(seconds: Self.wholeSeconds($0)) } ?? .wrong(attemptsLeft: state.lockout.attemptsLeft), lockout)
        }
        if !right {
            metrics?.wrongPin(lockedOut: lockout != nil)
            announce(lockout == nil ? "pin_wrong" : "pin_locked", by: Actor.staff.rawValue, lockout.map { ["lockedForSeconds": "\(Self.wholeSeconds($0))"] } ?? [:])
        }
        await persist()
        return verdict
    }

    /// Ends a lockout and forgets the wrong PINs (`surveyctl staff-pin unlock`). Returns whether
    /// the way in was locked.
    @discardableResult
    public func unlock(by actor: Actor) async -> Bool {
        let at = now()
        let wasLocked = state.withLock { state in
            defer {
                state.lockout.reset()
                state.version += 1
            }
            return state.lockout.remaining(at: at) != nil
        }
        announce("pin_unlocked", by: actor.rawValue, ["wasLocked": "\(wasLocked)"])
        await persist()
        return wasLocked
    }

    static func wholeSeconds(_ duration: Duration) -> Int {
        Int(StaffLockout.seconds(duration).rounded(.up))
    }

    /// A message for the respondent's screen: one line of at most 200 characters; blank is none.
    static func checkMessage(_ message: String?) throws(KioskStaffError) -> String? {
        guard let text = message?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if text.count > 200 { throw KioskStaffError("the message is \(text.count) characters; give at most 200") }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw KioskStaffError("the message contains a control character (a line break?); give one line of text")
        }
        return text
    }
}

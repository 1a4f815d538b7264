import Kiosk

extension KioskError {
    /// A session error as the kiosk pages tell them apart, in one place (the control API's
    /// mapping is `ControlError+SessionError.swift`). The message goes to the log only.
    init(_ error: SessionError) {
        let kind: Kind
        switch error.code {
        case .noSuchSession, .noOpenSession, .severalOpen:
            kind = .noSuchSession
        case .sessionClosed, .notAsking:
            kind = .sessionClosed
        case .questionChanged:
            kind = .questionChanged
        case .badLanguage, .badPosition, .journalUnavailable, .queueFailed, .definitionUnavailable, .definitionInvalid,
             .noSuchStage, .replayMismatch:
            kind = .unavailable
        }
        self.init(kind, error.message)
    }
}

import Synchronization

/// Which browser holds which session: the kiosk's half of the security model.
///
/// A browser is known by the unguessable token of its cookie; the token maps to a binding that
/// holds the session id (never sent to the browser), the session's CSRF token and what the
/// pages need between a POST and the GET after it. Bindings expire: one with a session after
/// ``KioskSettings/sessionExpirySeconds`` without a request (the session is then abandoned by
/// the caller), one without a session after ``KioskSettings/browserLifetimeSeconds``. The state
/// sits in a `Mutex`; every operation is synchronous and returns what the caller must do
/// outside the lock (the sessions to abandon).
final class BrowserBindings: Sendable {
    /// One browser's state.
    struct Binding: Sendable, Hashable {
        /// The CSRF token every form of this browser carries now.
        var csrf: String
        /// The CSRF token before the last change of session: a form posted with it is stale
        /// (a double tap across the start or the end of a session), not forged.
        var previousCSRF: String?
        var session: KioskSessionID?
        /// The language of the pages (the session's, or the welcome screen's choice).
        var language: KioskLanguage
        /// How the last session ended, for the end screen.
        var ended: KioskOutcome?
        /// A rejected answer, shown once by the next question page.
        var flash: Flash?
        /// The question the last question page showed (cleared by Back, so a double tap on
        /// Back goes back once).
        var shown: ShownQuestion?
        var lastSeen: ContinuousClock.Instant
        /// Start was pressed and the consent notice is being read: no session yet.
        var consent: ConsentStep? = nil
        /// The respondent declined the consent notice: the next page is the neutral thank-you.
        var declined = false
        /// The last move was Back: the next question page slides in from the other side.
        var cameBack = false
    }

    /// A respondent reading the consent notice: the language, and the version the last consent
    /// page showed (what an agreement records, even when the file changed since).
    struct ConsentStep: Sendable, Hashable {
        var language: KioskLanguage
        var shown: String?
    }

    /// A rejected answer and what the respondent had entered.
    struct Flash: Sendable, Hashable {
        var question: String
        var position: Int
        var rejection: KioskRejection
        var posted: PostedAnswer
    }

    /// The question a page showed, as the kiosk needs it to take the next Back.
    struct ShownQuestion: Sendable, Hashable {
        var name: String
        var position: Int
    }

    /// What a lookup found.
    struct Found: Sendable {
        var token: String
        var binding: Binding
        /// A session that expired before this request: abandon it.
        var expired: KioskSessionID?
    }

    private struct State {
        var bindings: [String: Binding] = [:]
    }

    private let state = Mutex(State())
    private let settings: KioskSettings
    private let now: @Sendable () -> ContinuousClock.Instant

    init(settings: KioskSettings, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.settings = settings
        self.now = now
    }

    /// The binding of `token`, touched. A session idle past its expiry is detached (and returned
    /// for abandoning); a binding without a session past its lifetime is forgotten.
    func lookup(_ token: String?) -> Found? {
        guard let token, KioskToken.isWellFormed(token) else { return nil }
        let time = now()
        return state.withLock { state -> Found? in
            // Changed in place: one hash lookup, and the binding copied only into the result.
            guard let index = state.bindings.index(forKey: token) else { return nil }
            var expired: KioskSessionID?
            let lastSeen = state.bindings.values[index].lastSeen
            if let session = state.bindings.values[index].session {
                if time - lastSeen > .seconds(settings.sessionExpirySeconds) {
                    expired = session
                    Self.detach(&state.bindings.values[index], ended: nil)
                }
            } else if time - lastSeen > .seconds(settings.browserLifetimeSeconds) {
                state.bindings.remove(at: index)
                return nil
            }
            state.bindings.values[index].lastSeen = time
            return Found(token: token, binding: state.bindings.values[index], expired: expired)
        }
    }

    /// A new binding without a session. When the kiosk is full, expired bindings go first,
    /// then the least recently seen of those without a session (up to an eighth of the limit, at
    /// most the older half of them), then the least recently seen one.
    /// - Returns: the binding, and sessions of evicted bindings to abandon.
    func create(language: KioskLanguage) -> (found: Found, evicted: [KioskSessionID]) {
        let time = now()
        let token = KioskToken.make()
        let binding = Binding(csrf: KioskToken.make(), language: language, lastSeen: time)
        let evicted = state.withLock { state -> [KioskSessionID] in
            let evicted = state.bindings.count >= settings.maxBrowsers ? makeRoom(&state, at: time) : []
            state.bindings[token] = binding
            return evicted
        }
        return (Found(token: token, binding: binding, expired: nil), evicted)
    }

    /// Changes the binding of `token`, when it is still there.
    @discardableResult
    func update<Result>(_ token: String, _ body: (inout Binding) -> Result) -> Result? {
        state.withLock { state -> Result? in
            guard let index = state.bindings.index(forKey: token) else { return nil }
            return body(&state.bindings.values[index])
        }
    }

    /// Attaches a newly started session, unless the binding got one meanwhile (a second Start
    /// raced this one) or is gone. The CSRF token changes with the session.
    /// - Returns: false when the session was not attached: the caller abandons it.
    func attach(_ session: KioskSessionID, language: KioskLanguage, to token: String) -> Bool {
        update(token) { binding -> Bool in
            guard binding.session == nil else { return false }
            binding.session = session
            binding.language = language
            binding.consent = nil
            binding.declined = false
            binding.ended = nil
            binding.flash = nil
            binding.shown = nil
            binding.previousCSRF = binding.csrf
            binding.csrf = KioskToken.make()
            return true
        } ?? false
    }

    /// Detaches `session` from the binding of `token` (when it still holds it): the end screen
    /// shows `ended` (nil: none), and the forms of the old session stop working.
    func detach(_ session: KioskSessionID, from token: String, ended: KioskOutcome?) {
        update(token) { binding in
            guard binding.session == session else { return }
            Self.detach(&binding, ended: ended)
        }
    }

    /// The number of browsers known, for tests and status.
    var count: Int { state.withLock { $0.bindings.count } }

    private static func detach(_ binding: inout Binding, ended: KioskOutcome?) {
        binding.session = nil
        binding.ended = ended
        binding.flash = nil
        binding.shown = nil
        binding.previousCSRF = binding.csrf
        binding.csrf = KioskToken.make()
    }

    /// Removes expired bindings and, when none had expired, the least recently seen of the
    /// bindings without a session: an eighth of the limit, but never more than the older half of
    /// them (at least one), so a browser that has just opened the welcome screen stays while older
    /// ones are left; when every binding has a session, the least recently seen one (its session
    /// is abandoned). One pass over the bindings and a sort of those without a session, which a
    /// full kiosk flooded with new browsers then pays about once per eighth of its limit rather
    /// than for every new browser.
    /// - Returns: the sessions of the bindings removed.
    private func makeRoom(_ state: inout State, at time: ContinuousClock.Instant) -> [KioskSessionID] {
        var expired: [String] = []
        var idle: [(seen: ContinuousClock.Instant, token: String)] = []
        var oldest: (token: String, seen: ContinuousClock.Instant)?
        for (token, binding) in state.bindings {
            let limit = binding.session == nil ? settings.browserLifetimeSeconds : settings.sessionExpirySeconds
            if time - binding.lastSeen > .seconds(limit) {
                expired.append(token)
            } else if binding.session == nil {
                idle.append((binding.lastSeen, token))
            } else if oldest.map({ binding.lastSeen < $0.seen }) ?? true {
                oldest = (token, binding.lastSeen)
            }
        }
        if expired.isEmpty {
            if !idle.isEmpty {
                let batch = max(1, min(settings.maxBrowsers / 8, idle.count / 2))
                expired = idle.sorted { $0.seen < $1.seen }.prefix(batch).map(\.token)
            } else if let victim = oldest?.token {
                expired = [victim]
            }
        }
        return expired.compactMap { state.bindings.removeValue(forKey: $0)?.session }
    }
}

import Synchronization

/// Who is on the staff screen.
///
/// Staff rights go with a token of their own: made anew when the right PIN is typed and given
/// to the browser as the staff cookie, never the browser's respondent token. A token that was
/// known before the PIN (seen on the network, or planted in the browser beforehand) therefore
/// gives no staff rights. An entry belongs to the browser that typed the PIN (its respondent
/// token) and ends after ``idleLimit`` untouched, on Done, when that browser shows a respondent's
/// page (the welcome screen, a start), or when any browser asks for a respondent's question (a
/// respondent at work at the kiosk). Kept apart from the browser's respondent binding, which
/// entering leaves exactly as it was.
final class StaffSessions: Sendable {
    /// How long the staff screen stays untouched before it ends.
    static let idleLimit: Duration = .seconds(60)
    /// The most browsers with a message waiting for them kept at once.
    static let maxFlashes = 256

    /// One staff login: the browser that typed the PIN, and until when it lasts untouched.
    struct Entry {
        var browser: String
        var until: ContinuousClock.Instant
    }

    private struct State {
        /// By staff token.
        var entries: [String: Entry] = [:]
        /// What the last PIN or action came to, shown once, by the browser's respondent token.
        var flashes: [String: String] = [:]
    }

    private let state = Mutex(State())
    let now: @Sendable () -> ContinuousClock.Instant

    init(now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.now = now
    }

    /// Whether the staff cookie `staffToken` puts `browser` on the staff screen now; a request
    /// with it keeps it there. A token of another browser, or one that ran out, does not.
    func isIn(_ staffToken: String?, browser: String) -> Bool {
        guard let staffToken, KioskToken.isWellFormed(staffToken) else { return false }
        let at = now()
        return state.withLock { state in
            guard let entry = state.entries[staffToken] else { return false }
            guard KioskToken.matches(entry.browser, browser), at < entry.until else {
                if at >= entry.until { state.entries[staffToken] = nil }
                return false
            }
            state.entries[staffToken]?.until = at.advanced(by: Self.idleLimit)
            return true
        }
    }

    /// Staff typed the right PIN in `browser`.
    /// - Returns: the new staff token, for the staff cookie; it replaces any the browser had.
    func enter(browser: String) -> String {
        let token = KioskToken.make()
        let at = now()
        state.withLock { state in
            state.entries = state.entries.filter { $0.value.browser != browser && at < $0.value.until }
            state.entries[token] = Entry(browser: browser, until: at.advanced(by: Self.idleLimit))
        }
        return token
    }

    /// Ends the staff login of the staff cookie `staffToken`; returns whether there was one.
    @discardableResult
    func leave(_ staffToken: String?) -> Bool {
        guard let staffToken else { return false }
        let at = now()
        return state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: staffToken) else { return false }
            return at < entry.until
        }
    }

    /// `browser` shows a respondent's page (the welcome screen, a start): its staff login ends,
    /// so that the next respondent at that browser finds the PIN pad, not the staff screen.
    /// - Returns: whether a staff login that had not run out ended.
    @discardableResult
    func end(browser: String) -> Bool {
        let at = now()
        return state.withLock { state in
            let before = state.entries.values.contains { $0.browser == browser && at < $0.until }
            if before { state.entries = state.entries.filter { $0.value.browser != browser } }
            return before
        }
    }

    /// A respondent's question was asked for: in another browser a respondent is at work at the
    /// kiosk, in the staff's own one staff have left. Every staff login ends.
    /// - Returns: how many that had not run out ended.
    @discardableResult
    func respondentSeen() -> Int {
        let at = now()
        return state.withLock { state in
            guard !state.entries.isEmpty else { return 0 }
            let live = state.entries.values.filter { at < $0.until }.count
            state.entries.removeAll()
            return live
        }
    }

    func setFlash(_ browser: String, _ text: String?) {
        state.withLock { state in
            if state.flashes.count >= Self.maxFlashes, state.flashes[browser] == nil { state.flashes.removeAll() }
            state.flashes[browser] = text
        }
    }

    func takeFlash(_ browser: String) -> String? {
        state.withLock { $0.flashes.removeValue(forKey: browser) }
    }
}

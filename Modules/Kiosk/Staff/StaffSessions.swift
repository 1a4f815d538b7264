import Synchronization

/// Which browsers are on the staff screen, by their cookie's token: entered with the right PIN,
/// until ``idleLimit`` untouched, "Done", or a respondent's question asked for by another browser
/// (a welcome screen shown or reloaded elsewhere does not end it).
/// Kept apart from the browser's respondent binding, which entering leaves exactly as it was.
final class StaffSessions: Sendable {
    /// How long the staff screen stays untouched before it ends.
    static let idleLimit: Duration = .seconds(60)

    struct Entry {
        var until: ContinuousClock.Instant?
        /// What the last action came to, shown once.
        var flash: String?
    }

    private let entries = Mutex<[String: Entry]>([:])
    let now: @Sendable () -> ContinuousClock.Instant

    init(now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.now = now
    }

    /// Whether `token`'s browser is on the staff screen now; a request from it keeps it there.
    func isIn(_ token: String) -> Bool {
        let at = now()
        return entries.withLock { entries in
            guard let until = entries[token]?.until, at < until else {
                entries[token]?.until = nil
                return false
            }
            entries[token]?.until = at.advanced(by: Self.idleLimit)
            return true
        }
    }

    func enter(_ token: String) {
        let until = now().advanced(by: Self.idleLimit)
        entries.withLock { entries in
            entries = entries.filter { $0.value.until != nil || $0.key == token }
            entries[token, default: Entry()].until = until
        }
    }

    /// Ends the staff screen of `token`'s browser; returns whether it was on it.
    @discardableResult
    func leave(_ token: String) -> Bool {
        entries.withLock { $0.removeValue(forKey: token)?.until != nil }
    }

    /// A respondent's question was asked for by `token`'s browser: every other browser's staff screen ends.
    func respondentSeen(_ token: String) {
        entries.withLock { entries in
            guard entries.contains(where: { $0.key != token }) else { return }
            entries = entries.filter { $0.key == token }
        }
    }

    func setFlash(_ token: String, _ text: String?) {
        entries.withLock { $0[token, default: Entry()].flash = text }
    }

    func takeFlash(_ token: String) -> String? {
        entries.withLock { entries in
            defer { entries[token]?.flash = nil }
            return entries[token]?.flash
        }
    }
}

import Synchronization

/// Rendered pages that every respondent gets alike but for their CSRF token: a question as first
/// shown (no answer of theirs in it, no rejection) and the welcome screen. Rendering one through
/// the templates cost a third of the daemon's CPU per answer under load (`doc/benchmarks.md`), so
/// a page is rendered once per key with a placeholder token and kept as the text around the
/// placeholder; each request only joins the pieces with its own token.
///
/// The placeholder is a fresh random token of the running daemon, so no questionnaire text can
/// contain it, and it is left as it is by HTML escaping. A page holding anything a respondent
/// entered is never kept: the callers only ask for pages without one.
///
/// The cache holds at most `limit` pages and starts over when full (a questionnaire has a few
/// dozen questions; the keys of outdated questionnaires go with the next start-over).
final class PageCache<Key: Hashable & Sendable>: Sendable {
    let placeholder = KioskToken.make()
    let limit: Int
    private let pages = Mutex<[Key: [String]]>([:])

    init(limit: Int = 512) {
        self.limit = limit
    }

    /// The page of `key` with `csrf` in it; `render` makes it with the token it is given, and is
    /// called only when the page is not kept yet.
    func page(_ key: Key, csrf: String, render: (_ token: String) -> String) -> String {
        if let pieces = pages.withLock({ $0[key] }) {
            return pieces.joined(separator: csrf)
        }
        let pieces = render(placeholder).split(separator: placeholder, omittingEmptySubsequences: false).map(String.init)
        pages.withLock { pages in
            if pages.count >= limit { pages.removeAll(keepingCapacity: true) }
            pages[key] = pieces
        }
        return pieces.joined(separator: csrf)
    }

    /// How many pages are kept (for tests).
    var count: Int { pages.withLock { $0.count } }
}

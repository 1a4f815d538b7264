/// Kiosk: the respondent's pages, a second front end of the session logic beside the control API.
///
/// A person at a touch screen (a browser in kiosk mode) starts a session, answers one question
/// per screen and leaves; the pages are server-rendered HTML forms from Mustache templates
/// (POST, then redirect to GET), with a small script that only adds countdowns and the idle
/// overlay. The module talks to the session logic through ``KioskBackend``, with value types of
/// its own, so it does not import the daemon; ``KioskApplication`` builds the Hummingbird
/// application that the daemon runs as a `Service`. A browser is bound to its session by an
/// unguessable cookie token held here (never the session id), and every form carries a CSRF
/// token of the session; `doc/kiosk.md` describes the pages and the security model.

import Foundation

/// The languages the kiosk pages speak: the questionnaire's language and the pages' own texts.
public enum KioskLanguage: String, Sendable, Hashable, CaseIterable {
    case ko, en
}

extension KioskLanguage {
    /// The languages of a comma-separated list such as `ko,en`, in its order.
    /// - Throws: ``KioskSettingsError`` naming the entries that are not languages the pages speak,
    ///   or one given twice, or an empty list.
    public static func list(_ text: String) throws(KioskSettingsError) -> [KioskLanguage] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let known = allCases.map(\.rawValue).joined(separator: ", ")
        let unknown = names.filter { KioskLanguage(rawValue: $0) == nil }
        guard unknown.isEmpty else {
            let shown = unknown.map { "\"\($0.prefix(20))\"" }.joined(separator: ", ")
            throw KioskSettingsError(setting: "kioskLanguages", message: "\(shown) \(unknown.count == 1 ? "is not a language" : "are not languages") the kiosk pages have words for; give one or more of \(known), comma-separated (e.g. ko,en)")
        }
        let languages = names.compactMap(KioskLanguage.init(rawValue:))
        if let twice = languages.first(where: { language in languages.filter { $0 == language }.count > 1 }) {
            throw KioskSettingsError(setting: "kioskLanguages", message: "\(twice.rawValue) is given twice; give each language once")
        }
        return languages
    }
}

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

/// The languages the kiosk pages speak: the questionnaire's language and the pages' own texts.
public enum KioskLanguage: String, Sendable, Hashable, CaseIterable {
    case ko, en
}

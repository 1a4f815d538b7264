/// What the operator is told to do about what stands between this device and the survey server,
/// each worded once: the survey client's errors, the connectivity check's log lines, the daemon's
/// start and `surveyctl status` (whose connectivity advice the daemon fills from here) all say it
/// in these words.
public enum OperatorAdvice {
    /// Something answers in the survey server's place (a captive portal, a login page).
    public static let portal = "if the network shows a login page (a captive portal), accept its terms or use another network"

    /// The server URL redirects to another origin, which may be where the server moved.
    public static func redirect(to target: String) -> String {
        "the server URL redirects to \(target): set serverURL to it if that is the survey server"
    }

    /// A `401` or `403` without the server's JSON: a portal, or the server refusing the token in
    /// a form surveyd does not expect.
    public static func tokenRefusal(status: Int) -> String {
        "a \(status) that is not the server's JSON may also be the server refusing the token in a form surveyd does not expect: check the token file"
    }

    /// The server URL is plain `http`.
    public static let plainHTTP = "the server URL is plain http: a captive portal or anyone on the network path can read what is sent (answers, the token) and answer in the server's place; use an https server URL to prevent it"

    /// This device's clock is not set, so no certificate can be checked.
    public static let clockNotSet = "set the clock or let NTP set it (timedatectl)"

    /// `advice` as a sentence of its own: capitalized, with a full stop.
    public static func sentence(_ advice: String) -> String {
        String(advice.prefix(1)).uppercased() + String(advice.dropFirst()) + "."
    }
}

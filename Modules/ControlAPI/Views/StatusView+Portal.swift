extension StatusView {
    /// What answers in the survey server's place while connectivity is `portal`, or what is wrong
    /// with its certificate while it is `clock_not_set` or `certificate_expired`.
    public struct Portal: Sendable, Hashable, Codable {
        /// What answered, e.g. `200 text/html: 1234 bytes beginning "<html>…"`.
        public var answer: String
        /// Where a redirect to another origin pointed, when the answer was one.
        public var redirect: String?
        /// When it was first seen.
        public var since: String
        /// What it means and what to do, in plain words.
        public var advice: String

        public init(answer: String, redirect: String?, since: String, advice: String = Portal.advice) {
            self.answer = answer
            self.redirect = redirect
            self.since = since
            self.advice = advice
        }

        public static let advice = "the network answers in the survey server's place, e.g. a Wi-Fi login page; accept its terms or use another network. Answers wait on this device and are sent once the survey server itself answers."
        /// Added to ``advice`` when what answered was a `401` or `403` that is not the server's JSON.
        public static let tokenNote = "It answered 401 or 403 without the server's JSON: it may also be the survey server refusing the token in a form surveyd does not expect; if the network has no login page, check the token file."
        /// While the state is `clock_not_set`.
        public static let clockAdvice = "this device's clock is not set (the survey server's certificate is not valid yet by it, or it is earlier than this build's date), so the certificate cannot be checked; set the clock or let NTP set it (timedatectl). Answers wait on this device and are sent as soon as the clock steps."
        /// While the state is `certificate_expired`.
        public static let expiredAdvice = "the survey server's certificate expired (this device's clock is plausible); renew the certificate on the server. Answers wait on this device and are sent once the server has a valid certificate."
    }

    /// The notice `status` carries while the server URL is plain `http`.
    public static let plainHTTPNotice = "the server URL is plain http: a captive portal or anyone on the network path can read what is sent (answers, the token) and answer in the server's place; use an https server URL to prevent it"
}

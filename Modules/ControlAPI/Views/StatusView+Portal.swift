extension StatusView {
    /// What answers in the survey server's place while connectivity is `portal`.
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
    }

    /// The notice `status` carries while the server URL is plain `http`.
    public static let plainHTTPNotice = "the server URL is plain http: a captive portal or anyone on the network path can read what is sent (answers, the token) and answer in the server's place; use an https server URL to prevent it"
}

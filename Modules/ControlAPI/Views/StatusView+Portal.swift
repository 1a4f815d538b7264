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
        /// What it means and what to do, in plain words (the daemon words it; a redirect's
        /// advice is part of it).
        public var advice: String

        public init(answer: String, redirect: String?, since: String, advice: String) {
            self.answer = answer
            self.redirect = redirect
            self.since = since
            self.advice = advice
        }
    }
}

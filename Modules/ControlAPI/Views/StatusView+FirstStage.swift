extension StatusView {
    /// The survey server has no questionnaire for the first stage (`firstStage`): sessions that
    /// name no stage (the kiosk's, `surveyctl start` without `--type`) cannot start.
    public struct FirstStageMissing: Sendable, Hashable, Codable {
        /// The stage the setting names.
        public var stage: String
        /// The language of the start that found it missing.
        public var lang: String
        /// When a start first found it missing.
        public var since: String

        public init(stage: String, lang: String, since: String) {
            self.stage = stage
            self.lang = lang
            self.since = since
        }
    }
}

extension Rendering {
    /// `first stage: MISSING …`, or nothing.
    static func firstStage(_ s: StatusView) -> [String] {
        guard let missing = s.firstStageMissing else { return [] }
        return ["first stage: MISSING: the survey server has no questionnaire for stage \(missing.stage) (\(missing.lang)) since \(missing.since); sessions that name no stage (the kiosk's, surveyctl start without --type) cannot start: set firstStage to a stage the server has, or ask the survey's owner to publish it"]
    }
}

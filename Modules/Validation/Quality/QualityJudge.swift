public import Entities

/// Decides a completed stage's flags from its questionnaire, its answers, its paradata and the
/// kiosk's recent completions. Pure: the same inputs give the same flags, and nothing here holds
/// back or changes an answer. Each rule is documented in `doc/data-quality.md`.
public struct QualityJudge: Sendable {
    public var rules: QualityRules

    public init(rules: QualityRules) {
        self.rules = rules
    }

    /// What one completed stage is judged on. Times are on the monotonic clock.
    public struct Stage: Sendable {
        public var questionnaire: Questionnaire
        public var answers: [String: AnswerValue]
        public var paradata: StageParadata
        public var startedAt: Duration?
        public var completedAt: Duration

        public init(questionnaire: Questionnaire, answers: [String: AnswerValue], paradata: StageParadata, startedAt: Duration?, completedAt: Duration) {
            self.questionnaire = questionnaire
            self.answers = answers
            self.paradata = paradata
            self.startedAt = startedAt
            self.completedAt = completedAt
        }
    }

    /// The flags of `stage`, in ``QualityFlag/Kind`` order; `history` holds the completions
    /// before it (not this one).
    public func flags(_ stage: Stage, history: CompletionHistory) -> [QualityFlag] {
        var flags: [QualityFlag?] = []
        if rules.enabled.contains(.speeding) { flags.append(speeding(stage)) }
        if rules.enabled.contains(.straightLining) { flags.append(straightLining(stage)) }
        if rules.enabled.contains(.rapidRepeat) { flags.append(rapidRepeat(stage, history)) }
        if rules.enabled.contains(.burst) { flags.append(burst(stage, history)) }
        if rules.enabled.contains(.mechanical) { flags.append(mechanical(stage)) }
        return flags.compactMap { $0 }
    }

    /// Half (``QualityRules/speedingShare``) or more of the timed answers faster than their floor.
    func speeding(_ stage: Stage) -> QualityFlag? {
        let forms = stage.questionnaire.forms
        let judged = stage.paradata.timedAnswers.filter { forms.indices.contains($0.position) }
        guard judged.count >= rules.minimumJudged else { return nil }
        let fast = judged.filter { timing in
            let form = forms[timing.position]
            return timing.milliseconds! < rules.floorMilliseconds(form, answer: stage.answers[form.name])
        }.count
        guard Double(fast) >= rules.speedingShare * Double(judged.count) else { return nil }
        return QualityFlag(.speeding, [fast, judged.count, stage.paradata.medianMilliseconds ?? 0])
    }

    /// A run of ``QualityRules/straightLineRun`` consecutive score or single-choice questions of
    /// three or more options answered at the same position; another form, a skip or an
    /// unanswered one ends a run.
    func straightLining(_ stage: Stage) -> QualityFlag? {
        var best: (run: Int, from: Int, position: Int) = (0, 0, 0)
        var current: (run: Int, from: Int, position: Int) = (0, 0, 0)
        for (index, form) in stage.questionnaire.forms.enumerated() {
            guard let position = Self.position(form, stage.answers[form.name]) else {
                current = (0, 0, 0)
                continue
            }
            current = current.run > 0 && current.position == position ? (current.run + 1, current.from, position) : (1, index + 1, position)
            if current.run > best.run { best = current }
        }
        guard best.run >= rules.straightLineRun else { return nil }
        return QualityFlag(.straightLining, [best.run, best.from, best.position])
    }

    /// Where on its form an answer lies, from 1, for the forms a straight line can run through:
    /// a score (its value) or a single choice (its option's place), of three or more choices.
    static func position(_ form: Form, _ answer: AnswerValue?) -> Int? {
        switch (form.input, answer) {
        case (.score(let options, _), .integer(let score)?):
            let choices = options.isEmpty ? FormInput.scoreRange.count : options.count
            return choices >= 3 ? score : nil
        case (.radio(let options), .string(let value)?):
            guard options.count >= 3, let index = options.firstIndex(where: { $0.value == value }) else { return nil }
            return index + 1
        default:
            return nil
        }
    }

    /// Begun within ``QualityRules/repeatWindowSeconds`` of the previous completion of the same
    /// stage, with ``QualityRules/repeatShare`` or more of the answers both gave the same (three
    /// or more compared).
    func rapidRepeat(_ stage: Stage, _ history: CompletionHistory) -> QualityFlag? {
        guard let startedAt = stage.startedAt,
              let previous = history.previous(stage: stage.questionnaire.stage, comparedWith: stage.answers) else { return nil }
        let after = startedAt - previous.at
        guard after >= .zero, after <= .seconds(rules.repeatWindowSeconds), previous.compared >= 3,
              Double(previous.same) >= rules.repeatShare * Double(previous.compared) else { return nil }
        return QualityFlag(.rapidRepeat, [Int(after.components.seconds), previous.same, previous.compared])
    }

    /// More completions in the last ``QualityRules/burstWindowSeconds`` (this one included) than
    /// a person can produce: the window over the stage's least time (the floors of its forms, at
    /// the answers given) plus a handover between people; at least 2.
    func burst(_ stage: Stage, _ history: CompletionHistory) -> QualityFlag? {
        let window = rules.burstWindowSeconds
        let completions = history.count(since: stage.completedAt - .seconds(window)) + 1
        let floor = stage.questionnaire.forms.reduce(0) { $0 + rules.floorMilliseconds($1, answer: stage.answers[$1.name]) }
        let perPerson = floor + rules.handoverSeconds * 1000
        let limit = max(2, window * 1000 / max(perPerson, 1))
        guard completions > limit else { return nil }
        return QualityFlag(.burst, [completions, window, limit])
    }

    /// The times between answers (``QualityRules/mechanicalMinimum`` or more) with a coefficient
    /// of variation under ``QualityRules/mechanicalCVPermille``.
    func mechanical(_ stage: Stage) -> QualityFlag? {
        let times = stage.paradata.timedAnswers.compactMap(\.milliseconds).map(Double.init)
        guard times.count >= max(2, rules.mechanicalMinimum) else { return nil }
        let mean = times.reduce(0, +) / Double(times.count)
        guard mean > 0 else { return QualityFlag(.mechanical, [0, times.count, 0]) }
        let variance = times.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(times.count - 1)
        let cv = Int((variance.squareRoot() / mean * 1000).rounded())
        guard cv < rules.mechanicalCVPermille else { return nil }
        return QualityFlag(.mechanical, [cv, times.count, Int(mean.rounded())])
    }
}

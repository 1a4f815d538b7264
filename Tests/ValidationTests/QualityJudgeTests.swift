import Entities
import Testing
@testable import Validation

/// Each quality flag at its edge: the numbers just under its threshold raise nothing, just over
/// raise it, with the evidence that says why.
@Suite(.timeLimit(.minutes(5)))
struct QualityJudgeTests {
    /// `count` forms; each asks a question of `words` words.
    static func questionnaire(_ count: Int, words: Int = 10, input: FormInput = .score(options: [], defaultScore: nil)) -> Questionnaire {
        let question = Array(repeating: "word", count: words).joined(separator: " ")
        return Questionnaire(stage: "common", forms: (0..<count).map { Form(name: "q\($0)", question: question, isRequired: true, input: input, rules: []) }, screening: [])
    }

    static func paradata(_ times: [Int]) -> StageParadata {
        StageParadata(questions: times.enumerated().map { QuestionTiming(position: $0.offset, milliseconds: $0.element) })
    }

    static func stage(_ q: Questionnaire, answers: [String: AnswerValue] = [:], times: [Int], startedAt: Duration? = .seconds(1000), completedAt: Duration = .seconds(1100)) -> QualityJudge.Stage {
        QualityJudge.Stage(questionnaire: q, answers: answers, paradata: paradata(times), startedAt: startedAt, completedAt: completedAt)
    }

    static func scores(_ values: [Int]) -> [String: AnswerValue] {
        Dictionary(uniqueKeysWithValues: values.enumerated().map { ("q\($0.offset)", AnswerValue.integer($0.element)) })
    }

    let judge = QualityJudge(rules: QualityRules())
    let empty = CompletionHistory(keep: .seconds(3600), salt: 1)

    // MARK: speeding

    @Test func aScoreOfTenWordsHasAFloorOfOnePointSevenSeconds() {
        let form = Self.questionnaire(1).forms[0]
        #expect(QualityRules().floorMilliseconds(form, answer: .integer(3)) == 700 + 10 * 100)
        let text = Form(name: "t", question: "What is your name", isRequired: true, input: .text(placeholder: nil), rules: [])
        #expect(QualityRules().floorMilliseconds(text, answer: .string("Kim")) == 1000 + 4 * 100 + 3 * 100)
    }

    @Test func speedingNeedsHalfOfTheAnswersUnderTheirFloor() {
        let q = Self.questionnaire(4)
        let answers = Self.scores([1, 2, 3, 4])
        // Floor 1700 ms each. One of four under: no flag; two of four: flagged.
        #expect(judge.speeding(Self.stage(q, answers: answers, times: [1699, 1700, 5000, 5000])) == nil)
        let flag = judge.speeding(Self.stage(q, answers: answers, times: [1699, 1699, 5000, 5000]))
        #expect(flag == QualityFlag(.speeding, [2, 4, 3349]))
        // Exactly at the floor is not under it.
        #expect(judge.speeding(Self.stage(q, answers: answers, times: [1700, 1700, 1700, 1700])) == nil)
    }

    @Test func speedingIsNotJudgedOnFewerThanThreeTimedAnswers() {
        let q = Self.questionnaire(3)
        let answers = Self.scores([1, 2, 3])
        #expect(judge.speeding(Self.stage(q, answers: answers, times: [10, 10])) == nil)
        #expect(judge.speeding(Self.stage(q, answers: answers, times: [10, 10, 10]))?.evidence.prefix(2) == [3, 3])
        // Untimed answers (a restart came between) and skips are not judged.
        var paradata = Self.paradata([10, 10])
        paradata.questions.append(QuestionTiming(position: 2, milliseconds: nil))
        paradata.questions.append(QuestionTiming(position: 2, milliseconds: 10, skipped: true))
        #expect(judge.speeding(QualityJudge.Stage(questionnaire: q, answers: answers, paradata: paradata, startedAt: nil, completedAt: .seconds(1))) == nil)
    }

    // MARK: straight_lining

    @Test func aRunOfSixSameScoresIsStraightLiningAndFiveIsNot() {
        let q = Self.questionnaire(8)
        #expect(judge.straightLining(Self.stage(q, answers: Self.scores([4, 4, 4, 4, 4, 2, 4, 4]), times: [])) == nil)
        #expect(judge.straightLining(Self.stage(q, answers: Self.scores([1, 4, 4, 4, 4, 4, 4, 2]), times: [])) == QualityFlag(.straightLining, [6, 2, 4]))
    }

    @Test func aQuestionnaireWithoutARunOfSixEligibleFormsNeverRaisesIt() {
        // Five scores, then text, then five scores: no run can reach six.
        var forms = Self.questionnaire(5).forms
        forms.append(Form(name: "t", question: "Why", isRequired: false, input: .text(placeholder: nil), rules: []))
        forms += Self.questionnaire(5).forms.map { var f = $0; f.name = "r" + f.name; return f }
        let q = Questionnaire(stage: "common", forms: forms, screening: [])
        var answers: [String: AnswerValue] = ["t": .string("ok")]
        for form in forms where form.name != "t" { answers[form.name] = .integer(7) }
        #expect(judge.straightLining(Self.stage(q, answers: answers, times: [])) == nil)
        // Two-option choices are not eligible either.
        let yesNo = Self.questionnaire(8, input: .radio(options: [ChoiceOption(label: "Yes", value: "y"), ChoiceOption(label: "No", value: "n")]))
        let same = Dictionary(uniqueKeysWithValues: yesNo.forms.map { ($0.name, AnswerValue.string("y")) })
        #expect(judge.straightLining(Self.stage(yesNo, answers: same, times: [])) == nil)
        // Three options are: the same option six times is a run.
        let three = Self.questionnaire(6, input: .radio(options: ["a", "b", "c"].map { ChoiceOption(label: $0, value: $0) }))
        let b = Dictionary(uniqueKeysWithValues: three.forms.map { ($0.name, AnswerValue.string("b")) })
        #expect(judge.straightLining(Self.stage(three, answers: b, times: [])) == QualityFlag(.straightLining, [6, 1, 2]))
    }

    // MARK: rapid_repeat

    @Test func aRepeatCountsWithinTheWindowAndWithEightyPercentTheSame() {
        let q = Self.questionnaire(5)
        var history = CompletionHistory(keep: .seconds(3600), salt: 7)
        history.record(stage: "common", at: .seconds(1000), answers: Self.scores([1, 2, 3, 4, 5]))
        // 4 of 5 the same (80 %), started 180 s after: flagged.
        let repeated = Self.stage(q, answers: Self.scores([1, 2, 3, 4, 1]), times: [], startedAt: .seconds(1180))
        #expect(judge.rapidRepeat(repeated, history) == QualityFlag(.rapidRepeat, [180, 4, 5]))
        // 181 s after: not.
        #expect(judge.rapidRepeat(Self.stage(q, answers: Self.scores([1, 2, 3, 4, 1]), times: [], startedAt: .seconds(1181)), history) == nil)
        // 3 of 5 (60 %): not.
        #expect(judge.rapidRepeat(Self.stage(q, answers: Self.scores([1, 2, 3, 1, 1]), times: [], startedAt: .seconds(1010)), history) == nil)
        // Another stage is not compared.
        let other = Questionnaire(stage: "other", forms: q.forms, screening: [])
        #expect(judge.rapidRepeat(Self.stage(other, answers: Self.scores([1, 2, 3, 4, 5]), times: [], startedAt: .seconds(1010)), history) == nil)
    }

    @Test func theHistoryKeepsFingerprintsNotAnswers() {
        var history = CompletionHistory(keep: .seconds(60), salt: 3)
        history.record(stage: "common", at: .seconds(0), answers: ["name": .string("Kim Minji")])
        #expect(!String(describing: history).contains("Kim"))
        // Older than `keep`: gone at the next record.
        history.record(stage: "x", at: .seconds(61), answers: [:])
        #expect(history.previous(stage: "common", comparedWith: [:]) == nil)
        #expect(history.count(since: .zero) == 1)
    }

    // MARK: burst

    @Test func burstIsMoreCompletionsThanTheWindowOverAPersonsLeastTime() {
        // 3 forms, floor 1.7 s each: 5.1 s + 20 s handover = 25.1 s; 300 s / 25.1 s = 11 people.
        let q = Self.questionnaire(3)
        let answers = Self.scores([1, 2, 3])
        var history = CompletionHistory(keep: .seconds(3600), salt: 1)
        for i in 0..<10 { history.record(stage: "common", at: .seconds(1000 + i), answers: [:]) }
        #expect(judge.burst(Self.stage(q, answers: answers, times: [], completedAt: .seconds(1100)), history) == nil)
        history.record(stage: "common", at: .seconds(1050), answers: [:])
        #expect(judge.burst(Self.stage(q, answers: answers, times: [], completedAt: .seconds(1100)), history) == QualityFlag(.burst, [12, 300, 11]))
        // The same completions, once the window has passed the oldest: not.
        #expect(judge.burst(Self.stage(q, answers: answers, times: [], completedAt: .seconds(1301)), history) == nil)
    }

    // MARK: mechanical

    @Test func timesWithACoefficientOfVariationUnderATenthAreMechanical() {
        let q = Self.questionnaire(5)
        // Mean 2000, standard deviation (n-1) 200.0: CV exactly 100 permille: not under.
        let edge = [1800, 2200, 1800, 2200, 2000]
        #expect(judge.mechanical(Self.stage(q, times: edge)) == nil)
        let regular = [1990, 2010, 1990, 2010, 2000]
        #expect(judge.mechanical(Self.stage(q, times: regular)) == QualityFlag(.mechanical, [5, 5, 2000]))
        // Four intervals are too few to judge.
        #expect(judge.mechanical(Self.stage(q, times: [2000, 2000, 2000, 2000])) == nil)
    }

    @Test func aFlagSwitchedOffIsNeverRaised() {
        let q = Self.questionnaire(6)
        let stage = Self.stage(q, answers: Self.scores([4, 4, 4, 4, 4, 4]), times: [100, 100, 100, 100, 100, 100])
        #expect(judge.flags(stage, history: empty).map(\.kind) == [.speeding, .straightLining, .mechanical])
        var rules = QualityRules()
        rules.enabled = [.straightLining]
        #expect(QualityJudge(rules: rules).flags(stage, history: empty).map(\.kind) == [.straightLining])
        rules.enabled = []
        #expect(QualityJudge(rules: rules).flags(stage, history: empty).isEmpty)
    }
}

import Entities
import Foundation
import SurveyTesting
import Testing
import Validation

/// One row of a rule table: the check, an answer, whether it passes.
struct RuleCase: Sendable, CustomTestStringConvertible {
    var check: Check
    var answer: AnswerValue
    var passes: Bool
    var earlier: [String: AnswerValue] = [:]
    var testDescription: String { "\(check) on \(answer) -> \(passes)" }
}

func pattern(_ source: String) -> Check {
    // Test patterns are written valid; a failure here is a test bug, reported by the test that uses it.
    (try? Pattern(parsing: source)).map(Check.pattern) ?? .notEqual(.null)
}

@Suite(.timeLimit(.minutes(5))) struct RuleTests {
    @Test(arguments: [
        RuleCase(check: .notEqual(.string("")), answer: .string(""), passes: false),
        RuleCase(check: .notEqual(.string("")), answer: .string(" "), passes: true),
        RuleCase(check: .notEqual(.number(0)), answer: .number(0), passes: false),
        RuleCase(check: .notEqual(.number(0)), answer: .integer(0), passes: false),
        RuleCase(check: .notEqual(.number(0)), answer: .number(0.5), passes: true),
        RuleCase(check: .notEqual(.number(-1)), answer: .integer(-1), passes: false),
        RuleCase(check: .notEqual(.array([])), answer: .list([]), passes: false),
        RuleCase(check: .notEqual(.array([])), answer: .list(["a"]), passes: true),
        RuleCase(check: .notEqual(.string("0")), answer: .number(0), passes: true),
    ])
    func not(_ row: RuleCase) { expectRow(row) }

    @Test(arguments: [
        RuleCase(check: .range(Bounds(lower: 19, upper: nil)), answer: .number(19), passes: true),
        RuleCase(check: .range(Bounds(lower: 19, upper: nil)), answer: .number(18.999), passes: false),
        RuleCase(check: .range(Bounds(lower: 19, upper: nil)), answer: .number(1e9), passes: true),
        RuleCase(check: .range(Bounds(lower: 1, upper: 120)), answer: .integer(120), passes: true),
        RuleCase(check: .range(Bounds(lower: 1, upper: 120)), answer: .integer(121), passes: false),
        RuleCase(check: .range(Bounds(lower: 1, upper: 120)), answer: .number(0.99), passes: false),
        RuleCase(check: .range(Bounds(lower: nil, upper: 9.5)), answer: .number(-100), passes: true),
        RuleCase(check: .range(Bounds(lower: nil, upper: 9.5)), answer: .number(9.51), passes: false),
        RuleCase(check: .range(Bounds(lower: 3, upper: 3)), answer: .number(3), passes: true),
        RuleCase(check: .range(Bounds(lower: 1, upper: 5)), answer: .string("4"), passes: true),
        RuleCase(check: .range(Bounds(lower: 1, upper: 5)), answer: .string("four"), passes: false),
        RuleCase(check: .range(Bounds(lower: 1, upper: 5)), answer: .list(["1"]), passes: false),
    ])
    func minMax(_ row: RuleCase) { expectRow(row) }

    @Test(arguments: [
        RuleCase(check: .sameAs(.literal(.string("agree"))), answer: .string("agree"), passes: true),
        RuleCase(check: .sameAs(.literal(.string("agree"))), answer: .string("Agree"), passes: false),
        RuleCase(check: .sameAs(.literal(.number(7))), answer: .integer(7), passes: true),
        RuleCase(check: .sameAs(.answer(named: "email")), answer: .string("a@b.co"), passes: true, earlier: ["email": .string("a@b.co")]),
        RuleCase(check: .sameAs(.answer(named: "email")), answer: .string("a@b.co"), passes: false, earlier: ["email": .string("a@b.com")]),
        RuleCase(check: .sameAs(.answer(named: "email")), answer: .string("a@b.co"), passes: false),
        RuleCase(check: .sameAs(.answer(named: "age")), answer: .number(30), passes: true, earlier: ["age": .integer(30)]),
    ])
    func sameAS(_ row: RuleCase) { expectRow(row) }

    static let email = #"^([\w\.\_\-])*[a-zA-Z0-9]+([\w\.\_\-])*([a-zA-Z0-9])+([\w\.\_\-])+@([a-zA-Z0-9]+\.)+[a-zA-Z0-9]{2,8}$"#

    @Test(arguments: [
        RuleCase(check: pattern(email), answer: .string("kim.cs@gmail.com"), passes: true),
        RuleCase(check: pattern(email), answer: .string("kim@gmail"), passes: false),
        RuleCase(check: pattern(email), answer: .string("a@b.co"), passes: false),  // the reference pattern needs 2+ characters before @
        RuleCase(check: pattern("[0-9]+"), answer: .string("123"), passes: true),
        RuleCase(check: pattern("[0-9]+"), answer: .string("123a"), passes: false),  // whole string, not a search
        RuleCase(check: pattern("/^[a-z]{3}-\\d{2}$/i"), answer: .string("ABC-12"), passes: true),
        RuleCase(check: pattern("/^[a-z]{3}-\\d{2}$/"), answer: .string("ABC-12"), passes: false),
        RuleCase(check: pattern("/a.b/s"), answer: .string("a\nb"), passes: true),
        RuleCase(check: pattern("a.b"), answer: .string("a\nb"), passes: false),
        RuleCase(check: pattern("[0-9]+"), answer: .integer(42), passes: true),
        RuleCase(check: pattern("[a-z]+"), answer: .list(["ab", "cd"]), passes: true),
        RuleCase(check: pattern("[a-z]+"), answer: .list(["ab", "c1"]), passes: false),
    ])
    func patterns(_ row: RuleCase) { expectRow(row) }

    @Test(arguments: [
        RuleCase(check: .length(Bounds(lower: 2, upper: nil)), answer: .string("김철"), passes: true),  // two syllables
        RuleCase(check: .length(Bounds(lower: 2, upper: nil)), answer: .string("김"), passes: false),
        RuleCase(check: .length(Bounds(lower: 2, upper: nil)), answer: .string("👍🏽"), passes: false),  // one grapheme
        RuleCase(check: .length(Bounds(lower: 3, upper: 3)), answer: .string("abc"), passes: true),
        RuleCase(check: .length(Bounds(lower: 3, upper: 3)), answer: .string("abcd"), passes: false),
        RuleCase(check: .length(Bounds(lower: 3, upper: 3)), answer: .string("ab"), passes: false),
        RuleCase(check: .length(Bounds(lower: 1, upper: 3)), answer: .list(["a", "b", "c"]), passes: true),
        RuleCase(check: .length(Bounds(lower: 1, upper: 3)), answer: .list(["a", "b", "c", "d"]), passes: false),
        RuleCase(check: .length(Bounds(lower: 1, upper: nil)), answer: .list([]), passes: false),
        RuleCase(check: .length(Bounds(lower: nil, upper: 2)), answer: .string(""), passes: true),
        RuleCase(check: .length(Bounds(lower: 1, upper: nil)), answer: .string("beer"), passes: true),
    ])
    func minMaxLength(_ row: RuleCase) { expectRow(row) }

    func expectRow(_ row: RuleCase) {
        if case .notEqual(.null) = row.check { Issue.record("test pattern did not compile"); return }
        #expect(row.check.passes(row.answer, earlierAnswers: row.earlier) == row.passes)
    }
}

@Suite(.timeLimit(.minutes(5))) struct AnswerValidatorTests {
    let common: Questionnaire
    let stage1: Questionnaire

    init() throws {
        common = try Questionnaire.decode(response: try Fixtures.data("questions/common.en.json"), stage: "common")
        stage1 = try Questionnaire.decode(response: try Fixtures.data("questions/1.en.json"), stage: "1")
    }

    @Test func firstFailingRuleMessageIsReported() throws {
        let name = try #require(common.form(named: "name"))
        #expect(AnswerValidator.check(.string(""), for: name)?.message == "Please enter your name.")
        #expect(AnswerValidator.check(.string(""), for: name)?.ruleIndex == 0)
        #expect(AnswerValidator.check(.string("K"), for: name)?.message == "Your name must be 2 to 20 characters long.")
        #expect(AnswerValidator.check(.string("K"), for: name)?.ruleIndex == 1)
        #expect(AnswerValidator.check(.string("김철"), for: name) == nil)
    }

    @Test func requiredAndOptionalSkips() throws {
        let name = try #require(common.form(named: "name"))
        let failure = AnswerValidator.check(nil, for: name)
        #expect(failure == ValidationFailure(formName: "name", ruleIndex: nil, message: ValidationFailure.requiredMessage))
        let coupon = try #require(stage1.form(named: "coupon"))
        #expect(AnswerValidator.check(nil, for: coupon) == nil)
        #expect(AnswerValidator.check(.string("nope"), for: coupon)?.message == "A coupon code looks like abc-12.")
    }

    @Test func sameAsComparesWithEarlierAnswers() throws {
        let confirm = try #require(common.form(named: "emailConfirm"))
        #expect(AnswerValidator.check(.string("kim.cs@gmail.com"), for: confirm, earlierAnswers: ["email": .string("kim.cs@gmail.com")]) == nil)
        #expect(AnswerValidator.check(.string("kim.cs@gmail.co"), for: confirm, earlierAnswers: ["email": .string("kim.cs@gmail.com")])?.message == "The e-mail addresses do not match.")
    }

    @Test func screeningAppliesOnceTheNamedAnswerIsGiven() throws {
        #expect(common.screeningResult(for: [:]) == nil)
        #expect(common.screeningResult(for: ["name": .string("Kim")]) == nil)
        #expect(common.screeningResult(for: ["age": .number(19)]) == nil)
        #expect(common.screeningResult(for: ["age": .number(18)]) == ScreeningResult(ruleIndex: 0, answerName: "age"))
        let stage2 = try Questionnaire.decode(response: try Fixtures.data("questions/2.ko.json"), stage: "2")
        #expect(stage2.screeningResult(for: ["tried": .string("yes")]) == nil)
        #expect(stage2.screeningResult(for: ["tried": .string("no")]) == ScreeningResult(ruleIndex: 0, answerName: "tried"))
    }
}

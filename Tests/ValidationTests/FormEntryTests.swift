import Entities
import Foundation
import SurveyTesting
import Testing
import Validation

/// A form's entry as a page posts it is read field by field for each kind of form: exact option
/// values, one value where the form takes one, and errors that name the question.
@Suite(.timeLimit(.minutes(5))) struct FormEntryTests {
    let forms: [String: Form]

    init() throws {
        forms = try FixtureForms.load()
    }

    func read(_ values: [String], extra: String? = nil, _ name: String) throws -> AnswerValue {
        try FormEntry(values: values, extra: extra).answer(for: try #require(forms[name]))
    }

    func error(_ values: [String], extra: String? = nil, _ name: String) throws -> InputError? {
        do {
            _ = try FormEntry(values: values, extra: extra).answer(for: try #require(forms[name]))
            return nil
        } catch let error as InputError {
            return error
        }
    }

    @Test func textIsTakenAsTyped() throws {
        #expect(try read(["Kim Minji"], "name") == .string("Kim Minji"))
        #expect(try read([" Kim, Minji "], "name") == .string(" Kim, Minji "))
        #expect(try read([], "pairing") == .string(""))
        let two = try #require(try error(["Kim", "Minji"], "name"))
        #expect(two.message == #"question "name": 2 values were posted, and this question takes one. Accepted: any text"#)
        #expect(two.formName == "name")
    }

    @Test(arguments: [("30", 30.0), ("-1.5", -1.5), (" 42 ", 42.0), ("500", 500.0)] as [(String, Double)])
    func numbers(text: String, value: Double) throws {
        #expect(try read([text], "age") == .number(value))
    }

    @Test func aNumberThatIsNoneOrOutOfRangeNamesTheQuestion() throws {
        #expect(try error(["thirty"], "age")?.message == #"question "age": "thirty" is not a number. Accepted: a number such as 42 or 3.5"#)
        #expect(try error(["nan"], "age")?.problem == #"question "age": "nan" is not a number"#)
        #expect(try error([""], "glassesPerWeek")?.problem == #"question "glassesPerWeek": "" is not a number"#)
        #expect(try error(["1e999"], "age")?.problem == #"question "age": "1e999" is out of range for a number"#)
        #expect(try error(["-inf"], "age")?.problem == #"question "age": "-inf" is out of range for a number"#)
        let long = String(repeating: "9", count: 50) + "x"
        #expect(try error([long], "age")?.problem == "question \"age\": \"\(long.prefix(40))…\" is not a number")
    }

    @Test func aRadioTakesOneOfferedValueExactly() throws {
        #expect(try read(["yes"], "tried") == .string("yes"))
        #expect(try read(["agree"], "consent") == .string("agree"))
        let position = try #require(try error(["2"], "tried"))
        #expect(position.message == #"question "tried": "2" is not one of the options it offers. Accepted: 1) yes (Yes); 2) no (No)"#)
        #expect(try error(["YES"], "tried")?.problem == #"question "tried": "YES" is not one of the options it offers"#)
        #expect(try error(["maybe"], "tried")?.formName == "tried")
        #expect(try error([], "tried")?.problem == #"question "tried": no option was chosen"#)
        #expect(try error(["yes", "no"], "tried")?.problem == #"question "tried": 2 values were posted, and this question takes one"#)
    }

    @Test func aCheckboxTakesEachOfferedValueOnceInOrder() throws {
        #expect(try read(["party", "home"], "occasions") == .list(["party", "home"]))
        #expect(try read(["home", "home"], "occasions") == .list(["home"]))
        #expect(try read([], "occasions") == .list([]))
        #expect(try read([""], "occasions") == .list([]))
        // Not split: a value with a comma is one value, and this form offers none.
        #expect(try error(["home,bar"], "occasions")?.problem == #"question "occasions": "home,bar" is not one of the options it offers"#)
        let beach = try #require(try error(["home", "beach"], "occasions"))
        #expect(beach.problem == #"question "occasions": "beach" is not one of the options it offers"#)
        #expect(beach.accepted.contains("3) party (At parties) [default]"))
        #expect(try error(["3"], "occasions") != nil, "a position is not a value")
    }

    @Test(arguments: ["1", "4", "7", " 5 "])
    func scores(text: String) throws {
        let score = Int(text.trimmingCharacters(in: .whitespaces))!
        #expect(try read([text], "like") == .integer(score))
        #expect(try read([text], "recommend") == .integer(score))
    }

    @Test(arguments: ["0", "8", "3.5", "good", ""])
    func wrongScores(text: String) throws {
        #expect(try error([text], "like")?.message == "question \"like\": \"\(text)\" is not a score. Accepted: a score from 1 to 7")
    }

    @Test func aChoiceWithInputTakesAnOptionOrTheExtraOptionsText() throws {
        #expect(try read(["wine"], "type") == .string("wine"))
        #expect(try read(["wine"], extra: "Cider", "type") == .string("wine"), "the text counts only with the extra option")
        #expect(try read(["extra"], extra: "  Craft cider ", "type") == .string("Craft cider"))
        #expect(try error(["extra"], extra: "  ", "type")?.message == #"question "type": the option "extra" was chosen without its text. Accepted: extra with your own text"#)
        #expect(try error(["extra"], "type")?.formName == "type")
        #expect(try error(["mead"], "reason")?.problem == #"question "reason": "mead" is not one of the options it offers"#)
        #expect(try error(["mead"], "type")?.accepted.last == "5) extra (Other) followed by your own text")
        #expect(try error(["5"], extra: "Cider", "type") != nil, "a position is not a value")
        #expect(try error([], extra: "Cider", "type")?.problem == #"question "type": no option was chosen"#)
    }

    // MARK: The blank-answer rule

    struct Blank: Sendable, CustomTestStringConvertible {
        var form: String
        var entry: FormEntry
        var expected: BlankAnswer?
        var testDescription: String { "\(form) \(entry.values) \(entry.extra ?? "-")" }
    }

    static let blanks: [Blank] = [
        // Required, with no empty answer: missing, whatever the extra text.
        Blank(form: "age", entry: FormEntry(values: [""]), expected: .missing),
        Blank(form: "tried", entry: FormEntry(), expected: .missing),
        Blank(form: "like", entry: FormEntry(values: [" "]), expected: .missing),
        Blank(form: "type", entry: FormEntry(values: [], extra: ""), expected: .missing),
        Blank(form: "type", entry: FormEntry(values: [], extra: "Cider"), expected: .missing),
        // Required, whose empty answer the rules judge (`not ""`, `minMaxLength`).
        Blank(form: "name", entry: FormEntry(values: [""]), expected: nil),
        Blank(form: "occasions", entry: FormEntry(), expected: nil),
        // Optional, posted empty: skipped.
        Blank(form: "glassesPerWeek", entry: FormEntry(values: [""]), expected: .skip),
        Blank(form: "pairing", entry: FormEntry(values: ["  "]), expected: .skip),
        Blank(form: "recommend", entry: FormEntry(), expected: .skip),
        // Something given: read.
        Blank(form: "age", entry: FormEntry(values: ["30"]), expected: nil),
        Blank(form: "glassesPerWeek", entry: FormEntry(values: ["x"]), expected: nil),
    ]

    @Test(arguments: blanks)
    func theBlankAnswerRule(_ blank: Blank) throws {
        let form = try #require(forms[blank.form])
        #expect(form.blankAnswer(nothingChosen: blank.entry.nothingChosen, emptyEntry: blank.entry.isBlank) == blank.expected)
    }

    @Test func anOptionalChoiceWithOnlyTheExtraTextIsReadNotSkipped() throws {
        let form = Form(name: "drink", question: "Drink?", isRequired: false, input: .choiceWithInput(options: [ChoiceOption(label: "Tea", value: "tea"), ChoiceOption(label: "Other", value: "extra")]), rules: [])
        let entry = FormEntry(values: [], extra: "Mate")
        #expect(form.blankAnswer(nothingChosen: entry.nothingChosen, emptyEntry: entry.isBlank) == nil)
        #expect(throws: InputError.self) { try entry.answer(for: form) }
        // Typed words are never skipped: an optional question with nothing given is read.
        #expect(form.blankAnswer(nothingChosen: true, emptyEntry: false) == nil)
    }
}

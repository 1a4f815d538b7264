import Entities
import Foundation
import SurveyTesting
import Testing
import Validation

@Suite(.timeLimit(.minutes(5))) struct InputParserTests {
    let forms: [String: Form]

    init() throws {
        forms = try FixtureForms.load()
    }

    func parse(_ words: [String], _ name: String) throws -> AnswerValue {
        try InputParser.parse(words, for: try #require(forms[name]))
    }

    func error(_ words: [String], _ name: String) throws -> InputError? {
        do {
            _ = try InputParser.parse(words, for: try #require(forms[name]))
            return nil
        } catch let error as InputError {
            return error
        }
    }

    @Test func text() throws {
        #expect(try parse(["Kim", "Chul", "Soo"], "name") == .string("Kim Chul Soo"))
        #expect(try parse([], "pairing") == .string(""))
    }

    @Test(arguments: [("30", 30.0), ("-1.5", -1.5), (" 42 ", 42.0)] as [(String, Double)])
    func numbers(word: String, value: Double) throws {
        #expect(try parse([word], "age") == .number(value))
    }

    @Test func wrongNumberListsWhatIsAccepted() throws {
        let e = try #require(try error(["thirty"], "age"))
        #expect(e.message == #""thirty" is not a number. Accepted: a number such as 42 or 3.5"#)
        #expect(try error(["inf"], "age") != nil)
    }

    @Test func radioByValueOrPosition() throws {
        #expect(try parse(["yes"], "tried") == .string("yes"))
        #expect(try parse(["2"], "tried") == .string("no"))
        #expect(try parse(["YES"], "tried") == .string("yes"))
        let e = try #require(try error(["maybe"], "tried"))
        #expect(e.message == #""maybe" is not one of the options. Accepted: 1) yes (Yes); 2) no (No)"#)
        #expect(try error(["3"], "tried") != nil)
        #expect(try error([], "tried")?.problem == "no option was given")
        #expect(try error(["yes", "no"], "tried")?.problem == "give exactly one option")
    }

    @Test func checkboxTakesSeveral() throws {
        #expect(try parse(["home", "3"], "occasions") == .list(["home", "party"]))
        #expect(try parse(["home,bar"], "occasions") == .list(["home", "bar"]))
        #expect(try parse(["home bar", " dinner ,1"], "occasions") == .list(["home", "bar", "dinner"]))
        #expect(try parse(["home", "home"], "occasions") == .list(["home"]))
        #expect(try parse([], "occasions") == .list([]))
        let e = try #require(try error(["home", "beach"], "occasions"))
        #expect(e.problem == #""beach" is not one of the options"#)
        #expect(e.accepted.contains("3) party (At parties) [default]"))
    }

    @Test func radioWithInputTakesExtraWithFreeText() throws {
        #expect(try parse(["wine"], "type") == .string("wine"))
        #expect(try parse(["extra", "craft", "cider"], "type") == .string("craft cider"))
        #expect(try parse(["5", "cider"], "type") == .string("cider"))
        #expect(try error(["extra"], "type")?.message == #""extra" needs free text after it. Accepted: extra YOUR ANSWER"#)
        #expect(try error(["wine", "red"], "type")?.problem == #"free text follows only "extra""#)
        #expect(try error(["mead"], "type")?.accepted.last == "5) extra (Other) followed by your own text")
    }

    @Test(arguments: ["1", "4", "7"])
    func scores(text: String) throws {
        #expect(try parse([text], "like") == .integer(Int(text)!))
        #expect(try parse([text], "recommend") == .integer(Int(text)!))
    }

    @Test(arguments: ["0", "8", "3.5", "good", ""])
    func wrongScores(text: String) throws {
        let e = try #require(try error([text], "like"))
        #expect(e.message == #""\#(text)" is not a score. Accepted: a score from 1 to 7"#)
    }

    @Test func acceptedInputDescribesEveryFormType() throws {
        #expect(InputParser.acceptedInput(for: try #require(forms["name"])) == ["any text"])
        #expect(InputParser.acceptedInput(for: try #require(forms["like"])) == ["a score from 1 to 7"])
        #expect(InputParser.acceptedInput(for: try #require(forms["occasions"])).last == "several choices separated by spaces or commas")
        #expect(InputParser.acceptedInput(for: try #require(forms["recommend"])).count == 8)
    }
}

import Entities
import Foundation
import SurveyTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DefinitionErrorTests {
    func errors(_ path: String) throws -> [DefinitionError] {
        let data = try Fixtures.data(path)
        do throws(DefinitionErrors) {
            _ = try Questionnaire.decode(response: data, stage: DefinitionLint.stageName(forFile: path))
        } catch {
            return error.errors
        }
        Issue.record("\(path) decoded without errors")
        return []
    }

    @Test func everyBrokenFixtureFails() throws {
        let paths = try Fixtures.brokenPaths()
        #expect(paths.count >= 10)
        for path in paths {
            #expect(try !errors(path).isEmpty, "\(path)")
        }
    }

    @Test func unknownFormType() throws {
        let e = try errors("broken/unknown-form-type.json")
        #expect(e.map(\.code) == [.unknownFormType])
        #expect(e[0].location == DefinitionLocation(stage: "unknown-form-type", formIndex: 1, formName: "when"))
        #expect(e[0].description == #"stage "unknown-form-type", forms[1] "when": unknown form type "date"; expected one of text, number, checkbox, radio, radioNumber, radioWithInput"#)
    }

    @Test func unknownRuleType() throws {
        let e = try errors("broken/unknown-rule-type.json")
        #expect(e.map(\.code) == [.unknownRuleType])
        #expect(e[0].location.ruleIndex == 0)
        #expect(e[0].description == #"stage "unknown-rule-type", forms[0] "name", validate[0]: unknown rule type "maxWords"; expected one of not, minMax, sameAS, pattern, minMaxLength"#)
    }

    @Test func targetsThatDoNotFitTheirRule() throws {
        let e = try errors("broken/bad-targets.json")
        #expect(e.map(\.code) == Array(repeating: .badTarget, count: 5))
        #expect(e.map { "\($0.location.formName ?? "")/\($0.location.ruleIndex ?? -1)" } == ["age/0", "age/1", "age/2", "name/0", "name/1"])
        #expect(e[0].message == #"a minMax rule's target must be [min, max] with numbers or "-" for no bound, found "adult""#)
        #expect(e[1].message == "a minMax rule's target must be [min, max] with min <= max, found [30,20]")
        #expect(e[3].message.contains("whole numbers >= 0"))
    }

    @Test func choiceFormsWithoutOptions() throws {
        let e = try errors("broken/missing-options.json")
        #expect(e.map(\.code) == [.missingOptions, .missingOptions])
        #expect(e[0].message == "a radio form needs a list of options ({label, value, checked}) as its placeholder, found a string")
        #expect(e[1].message == "a checkbox form needs a non-empty list of options ({label, value, checked}) as its placeholder")
    }

    @Test func duplicateFormNames() throws {
        let e = try errors("broken/duplicate-names.json")
        #expect(e.map(\.code) == [.duplicateFormName])
        #expect(e[0].location.formIndex == 1)
    }

    @Test func referencesToNoForm() throws {
        let e = try errors("broken/unknown-reference.json")
        #expect(e.map(\.code) == [.unknownReference, .unknownReference])
        #expect(e[0].message == #"the sameAS rule refers to "$mail", but no form has the name "mail""#)
        #expect(e[1].location.screeningIndex == 0)
        #expect(e[1].description.contains("escapeValidate[0]"))
    }

    @Test func patternsThatDoNotCompileOrHaveBadFlags() throws {
        let e = try errors("broken/bad-patterns.json")
        #expect(e.map(\.code) == [.badPattern, .badPattern])
        #expect(e[0].message.hasPrefix(#"pattern "([a-z]+": it does not compile"#))
        #expect(e[1].message == #"pattern "/^[a-z]+$/gx": unsupported flags "gx"; supported flags are i, m, s and u"#)
    }

    @Test func allErrorsAreReportedAtOnce() throws {
        let e = try errors("broken/many-errors.json")
        #expect(e.map(\.code) == [.unknownFormType, .missingOptions, .unknownRuleType, .duplicateFormName, .badTarget, .unknownReference])
    }

    @Test func malformedPayloadsNameThePath() throws {
        #expect(try errors("broken/missing-field.json").map(\.message) == ["data.forms[0].name: missing"])
        #expect(try errors("broken/not-json.json").map(\.message) == ["not valid JSON"])
        let wrongType = Data(#"{"status":200,"data":{"forms":[{"name":"a","question":"?","required":"yes","type":"text"}]}}"#.utf8)
        do throws(DefinitionErrors) {
            _ = try Questionnaire.decode(response: wrongType, stage: "s")
            Issue.record("decoded")
        } catch {
            #expect(error.errors.map(\.message) == ["data.forms[0].required: expected a bool"])
        }
        let badStatus = Data(#"{"status":500,"data":{"forms":[]}}"#.utf8)
        do throws(DefinitionErrors) {
            _ = try Questionnaire.decode(response: badStatus, stage: "s")
            Issue.record("decoded")
        } catch {
            #expect(error.errors.map(\.message) == ["envelope status is 500, expected 200"])
        }
    }

    @Test func errorsDescriptionTellsWhatToDo() throws {
        let data = try Fixtures.data("broken/duplicate-names.json")
        do throws(DefinitionErrors) {
            _ = try Questionnaire.decode(response: data, stage: "dup")
            Issue.record("decoded")
        } catch {
            #expect(error.description.hasPrefix(#"questionnaire "dup" has 1 definition error; fix the definition"#))
        }
    }

    @Test(arguments: ["/a/", "/a/i", "/a/msu", "a/b", "/"])
    func acceptedPatternForms(source: String) throws {
        _ = try Pattern(parsing: source)
    }
}

/// Numeric rule targets a server may send that do not fit the model: they become located
/// definition errors, never a trap.
@Suite(.timeLimit(.minutes(5))) struct NumericTargetTests {
    func errors(rule: String, target: String) -> [DefinitionError] {
        let body = #"{"status":200,"data":{"forms":[{"name":"a","question":"?","type":"text"},{"name":"b","question":"?","type":"text","validate":[{"type":"\#(rule)","target":\#(target),"validateText":"x"}]}]}}"#
        do throws(DefinitionErrors) {
            _ = try Questionnaire.decode(response: Data(body.utf8), stage: "s")
        } catch {
            return error.errors
        }
        Issue.record("\(rule) \(target) decoded without errors")
        return []
    }

    @Test(arguments: [
        #"[0, 1e19]"#, #"[0, 9223372036854775808]"#, #"[0, "1e19"]"#, #"["1e400", "-"]"#, #"["-", "inf"]"#,
        #"[0, "nan"]"#, #"[1e300, 1e301]"#,
    ])
    func lengthBoundsOutsideTheIntegersAreBadTargets(target: String) throws {
        let e = errors(rule: "minMaxLength", target: target)
        // A number JSON cannot hold (1e400) may already fail as malformed; either way it is reported.
        let error = try #require(e.first)
        #expect(e.count == 1)
        if error.code == .badTarget {
            #expect(error.location == DefinitionLocation(stage: "s", formIndex: 1, formName: "b", ruleIndex: 0))
            #expect(error.message.hasPrefix("a minMaxLength rule's target must be [min, max] with whole numbers"))
            #expect(error.description.hasPrefix(#"stage "s", forms[1] "b", validate[0]: "#))
        } else {
            #expect(error.code == .malformed)
        }
    }

    @Test func lengthBoundsUpToIntMaxAreAccepted() {
        let body = #"{"status":200,"data":{"forms":[{"name":"b","question":"?","type":"text","validate":[{"type":"minMaxLength","target":[0, 1e18]}]}]}}"#
        #expect(throws: Never.self) { try Questionnaire.decode(response: Data(body.utf8), stage: "s") }
    }

    @Test(arguments: [#"["-inf", 5]"#, #"[0, "inf"]"#, #"["nan", 5]"#, #"[0, "1e400"]"#])
    func rangeBoundsMustBeFinite(target: String) throws {
        let e = errors(rule: "minMax", target: target)
        let error = try #require(e.first)
        #expect(e.count == 1)
        #expect(error.code == .badTarget)
        #expect(error.location == DefinitionLocation(stage: "s", formIndex: 1, formName: "b", ruleIndex: 0))
        #expect(error.message.hasPrefix("a minMax rule's target must be [min, max] with finite numbers"))
    }
}

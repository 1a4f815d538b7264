import Entities
import Foundation
import SurveyTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct QuestionnaireDecodingTests {
    @Test(arguments: Fixtures.questionnairePaths)
    func everyFixtureDecodes(path: String) throws {
        let stage = DefinitionLint.stageName(forFile: path)
        let questionnaire = try Questionnaire.decode(response: try Fixtures.data(path), stage: stage)
        #expect(questionnaire.stage == stage)
        #expect(!questionnaire.forms.isEmpty)
    }

    @Test func fixturesTogetherUseEveryFormTypeAndRuleType() throws {
        var formTypes: Set<FormType> = []
        var ruleTypes: Set<RuleType> = []
        var screeningRules = 0
        for path in Fixtures.questionnairePaths {
            let q = try Questionnaire.decode(response: try Fixtures.data(path), stage: "x")
            formTypes.formUnion(q.forms.map(\.type))
            ruleTypes.formUnion(q.forms.flatMap(\.rules).map(\.check.type))
            screeningRules += q.screening.count
        }
        #expect(formTypes == Set(FormType.allCases))
        #expect(ruleTypes == Set(RuleType.allCases))
        #expect(screeningRules > 0)
    }

    @Test func commonStageDecodesIntoTypedModel() throws {
        let q = try Questionnaire.decode(response: try Fixtures.data("questions/common.en.json"), stage: "common")
        #expect(q.forms.map(\.name) == ["name", "email", "emailConfirm", "age", "like"])
        let name = try #require(q.form(named: "name"))
        #expect(name.isRequired)
        #expect(name.input == .text(placeholder: "Name"))
        #expect(name.rules.map(\.check) == [.notEqual(.string("")), .length(Bounds(lower: 2, upper: 20))])
        #expect(name.rules[1].message == "Your name must be 2 to 20 characters long.")
        #expect(q.form(named: "emailConfirm")?.rules.first?.check == .sameAs(.answer(named: "email")))
        #expect(q.form(named: "age")?.input == .number(placeholder: 0))
        #expect(q.form(named: "age")?.rules.last?.check == .range(Bounds(lower: 1, upper: 120)))
        #expect(q.form(named: "like")?.input == .score(options: [], defaultScore: nil))
        #expect(q.screening == [ScreeningRule(answer: "age", check: .range(Bounds(lower: 19, upper: nil)))])
    }

    @Test func choiceFormsCarryOptionsAndDefaults() throws {
        let q1 = try Questionnaire.decode(response: try Fixtures.data("questions/1.ko.json"), stage: "1")
        guard case .checkbox(let options) = q1.form(named: "occasions")?.input else {
            Issue.record("occasions is not a checkbox"); return
        }
        #expect(options.map(\.value) == ["home", "bar", "party", "dinner"])
        #expect(options.filter(\.checked).map(\.value) == ["party"])
        #expect(options[0].label == "집에서")
        guard case .pattern(let pattern) = q1.form(named: "coupon")?.rules.first?.check else {
            Issue.record("coupon has no pattern"); return
        }
        #expect(pattern.body == #"^[a-z]{3}-\d{2}$"#)
        #expect(pattern.ignoresCase)

        let q2 = try Questionnaire.decode(response: try Fixtures.data("questions/2.en.json"), stage: "2")
        guard case .score(let scoreOptions, let defaultScore) = q2.form(named: "recommend")?.input else {
            Issue.record("recommend is not a score"); return
        }
        #expect(scoreOptions.count == 7)
        #expect(defaultScore == 4)
        #expect(q2.form(named: "reason")?.type == .radioWithInput)
        #expect(q2.form(named: "consent")?.rules.first?.check == .sameAs(.literal(.string("agree"))))
    }

    @Test func languagesDifferOnlyInTexts() throws {
        for stage in Fixtures.stages {
            let ko = try Questionnaire.decode(response: try Fixtures.data("questions/\(stage).ko.json"), stage: stage)
            let en = try Questionnaire.decode(response: try Fixtures.data("questions/\(stage).en.json"), stage: stage)
            #expect(ko.forms.map(\.name) == en.forms.map(\.name))
            #expect(ko.forms.map(\.type) == en.forms.map(\.type))
            #expect(ko.forms.map { $0.rules.map(\.check) } == en.forms.map { $0.rules.map(\.check) })
            #expect(ko.forms.map { $0.input.options.map(\.value) } == en.forms.map { $0.input.options.map(\.value) })
            #expect(ko.screening == en.screening)
        }
    }

    @Test(arguments: [
        (#"0"#, FormInput.number(placeholder: 0)),
        (#""""#, FormInput.number(placeholder: nil)),
        (#""7""#, FormInput.number(placeholder: 7)),
    ])
    func numberPlaceholders(json: String, expected: FormInput) throws {
        let body = #"{"status":200,"data":{"forms":[{"name":"n","question":"?","required":true,"type":"number","placeholder":\#(json),"validate":[]}]}}"#
        let q = try Questionnaire.decode(response: Data(body.utf8), stage: "s")
        #expect(q.forms[0].input == expected)
    }

    @Test(arguments: [
        (#""hello""#, FormInput.text(placeholder: "hello")),
        (#"3"#, FormInput.text(placeholder: "3")),
        (#"true"#, FormInput.text(placeholder: "true")),
        (#"null"#, FormInput.text(placeholder: nil)),
    ])
    func textPlaceholders(json: String, expected: FormInput) throws {
        let body = #"{"status":200,"data":{"forms":[{"name":"t","question":"?","required":false,"type":"text","placeholder":\#(json),"validate":[]}],"escapeValidate":[]}}"#
        let q = try Questionnaire.decode(response: Data(body.utf8), stage: "s")
        #expect(q.forms[0].input == expected)
        #expect(q.forms[0].isRequired == false)
    }

    @Test func ruleTargetShapes() throws {
        let body = #"""
        {"status":200,"data":{"forms":[{"name":"a","question":"?","required":true,"type":"text","placeholder":"","validate":[
          {"type":"not","target":-1,"validateText":"1"},
          {"type":"not","target":[],"validateText":"2"},
          {"type":"minMax","target":["-", 9.5],"validateText":"3"},
          {"type":"minMaxLength","target":[3, 3],"validateText":"4"},
          {"type":"sameAS","target":"literal","validateText":"5"},
          {"type":"sameAs","target":"$b","validateText":"6"},
          {"type":"pattern","target":"/^a.b$/s","validateText":"7"}
        ]},{"name":"b","question":"?","required":false,"type":"text","placeholder":"","validate":[]}],"escapeValidate":[]}}
        """#
        let q = try Questionnaire.decode(response: Data(body.utf8), stage: "s")
        let checks = q.forms[0].rules.map(\.check)
        #expect(checks[0] == .notEqual(.number(-1)))
        #expect(checks[1] == .notEqual(.array([])))
        #expect(checks[2] == .range(Bounds(lower: nil, upper: 9.5)))
        #expect(checks[3] == .length(Bounds(lower: 3, upper: 3)))
        #expect(checks[4] == .sameAs(.literal(.string("literal"))))
        #expect(checks[5] == .sameAs(.answer(named: "b")))
        guard case .pattern(let pattern) = checks[6] else { Issue.record("not a pattern"); return }
        #expect(pattern.dotMatchesNewlines)
        #expect(q.forms[0].rules.map(\.message) == ["1", "2", "3", "4", "5", "6", "7"])
    }

    @Test func sameAsMayReferToAnEarlierStage() throws {
        let body = #"{"status":200,"data":{"forms":[{"name":"again","question":"?","required":true,"type":"text","placeholder":"","validate":[{"type":"sameAS","target":"$email","validateText":"x"}]}]}}"#
        #expect(throws: DefinitionErrors.self) { try Questionnaire.decode(response: Data(body.utf8), stage: "1") }
        let q = try Questionnaire.decode(response: Data(body.utf8), stage: "1", knownAnswerNames: ["email"])
        #expect(q.forms[0].rules[0].check == .sameAs(.answer(named: "email")))
    }

    @Test func referencesToEarlierStagesAreRecordedAndCheckedWhenTheStageStarts() throws {
        let body = #"""
        {"status":200,"data":{"forms":[{"name":"again","question":"?","required":true,"type":"text","placeholder":"","validate":[
          {"type":"sameAS","target":"$b","validateText":"local"},
          {"type":"sameAS","target":"$email","validateText":"earlier"}
        ]},{"name":"b","question":"?","type":"text"}],"escapeValidate":[{"name":"age","type":"minMax","target":[19,"-"]},{"name":"b","type":"not","target":""}]}}
        """#
        let q = try Questionnaire.decodeDeferringReferences(response: Data(body.utf8), stage: "1")
        #expect(q.forms[0].rules.map(\.check) == [.sameAs(.answer(named: "b")), .sameAs(.answer(named: "email"))])
        #expect(q.externalReferences == [
            AnswerReference(name: "email", rule: .sameAs, location: DefinitionLocation(stage: "1", formIndex: 0, formName: "again", ruleIndex: 1)),
            AnswerReference(name: "age", rule: .screening, location: DefinitionLocation(stage: "1", formName: "age", screeningIndex: 0)),
        ])
        #expect(throws: Never.self) { try q.checkReferences(against: ["email", "age", "name"]) }
        do throws(DefinitionErrors) {
            try q.checkReferences(against: ["age"])
            Issue.record("a missing answer passed")
        } catch {
            #expect(error.errors.map(\.description) == [#"stage "1", forms[0] "again", validate[1]: the sameAS rule refers to "$email", but no form has the name "email""#])
        }
        // The same errors as decoding with the names known, at the same places.
        for known: Set<String> in [[], ["email"], ["age"]] {
            do throws(DefinitionErrors) {
                _ = try Questionnaire.decode(response: Data(body.utf8), stage: "1", knownAnswerNames: known)
                Issue.record("decoded with \(known)")
            } catch {
                #expect(error.errors == q.unresolvedReferences(answerNames: known))
            }
        }
        #expect(try Questionnaire.decode(response: Data(body.utf8), stage: "1", knownAnswerNames: ["email", "age"]) == q)
    }

    @Test func decodingDeferringReferencesStillReportsEverythingElse() throws {
        let many = try Fixtures.data("broken/many-errors.json")
        do throws(DefinitionErrors) {
            _ = try Questionnaire.decodeDeferringReferences(response: many, stage: "many")
            Issue.record("decoded")
        } catch {
            #expect(error.errors.map(\.code) == [.unknownFormType, .missingOptions, .unknownRuleType, .duplicateFormName, .badTarget])
        }
        let q = try Questionnaire.decodeDeferringReferences(response: try Fixtures.data("broken/unknown-reference.json"), stage: "unknown-reference")
        #expect(q.externalReferences.map(\.name) == ["mail", "age"])
        #expect(q.unresolvedReferences(answerNames: []).map(\.code) == [.unknownReference, .unknownReference])
        #expect(try Questionnaire.decodeDeferringReferences(response: try Fixtures.data("questions/common.en.json"), stage: "common").externalReferences.isEmpty)
    }

    @Test func referencePayloadShapesDecode() throws {
        // The shapes of the captured reference payloads (see doc/architecture.md), written inline:
        // a radioWithInput form with an `extra` option and a minMaxLength [1, "-"] rule.
        let body = #"""
        {"status":200,"data":{"forms":[{"name":"type","question":"어떤 종류의 술을 좋아하시나요?","required":true,"type":"radioWithInput",
          "placeholder":[{"label":"맥주","value":"beer","checked":false},{"label":"기타","value":"extra","checked":false}],
          "validate":[{"type":"minMaxLength","target":[1,"-"],"validateText":"반드시 한 개는 선택해야 합니다."}]}],"escapeValidate":[]}}
        """#
        let q = try Questionnaire.decode(response: Data(body.utf8), stage: "1")
        #expect(q.forms[0].input == .choiceWithInput(options: [ChoiceOption(label: "맥주", value: "beer"), ChoiceOption(label: "기타", value: "extra")]))
    }
}

import Entities
import Foundation
import SurveyTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct LintTests {
    @Test(arguments: [
        ("mock/questions/common.en.json", "common"),
        ("2.ko.json", "2"),
        ("/tmp/api_question_1.json", "1"),
        ("survey", "survey"),
    ])
    func stageNames(path: String, stage: String) {
        #expect(DefinitionLint.stageName(forFile: path) == stage)
    }

    @Test func filesLintedTogetherMayReferToEachOther() throws {
        let first = Data(#"{"status":200,"data":{"forms":[{"name":"email","question":"?","required":true,"type":"text","placeholder":"","validate":[]}]}}"#.utf8)
        let second = Data(#"{"status":200,"data":{"forms":[{"name":"again","question":"?","required":true,"type":"text","placeholder":"","validate":[{"type":"sameAS","target":"$email","validateText":"x"}]}]}}"#.utf8)
        let alone = DefinitionLint.lint([("b.json", second)])
        guard case .failure = alone[0].result else { Issue.record("lint alone passed"); return }
        let together = DefinitionLint.lint([("a.json", first), ("b.json", second)])
        guard case .success = together[1].result else { Issue.record("lint together failed"); return }
    }

    @Test func summaryListsFormsRulesAndScreening() throws {
        let report = DefinitionLint.lint([("common.en.json", try Fixtures.data("questions/common.en.json"))])[0]
        let lines = report.lines
        #expect(lines[0] == #"common.en.json: ok, stage "common": 5 forms, 1 screening rule"#)
        #expect(lines[1].hasPrefix("  1. name"))
        #expect(lines[1].contains("required"))
        #expect(lines[1].contains(#"rules: not ""; minMaxLength [2, 20]"#))
        #expect(lines.last == "  screening: age minMax [19, -]")
    }
}

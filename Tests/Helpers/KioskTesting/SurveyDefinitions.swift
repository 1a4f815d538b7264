/// KioskTesting: a ``Kiosk/KioskBackend`` that runs the project's survey (`mock/questions`,
/// `mock/routing.json`) in memory, with the Validation module's parser and rules, so that the
/// kiosk's tests and its preview server show real forms and real rule messages in both
/// languages. It is a test double, never linked into an app.

public import Entities
import Foundation
public import Kiosk
public import MockServer
import SurveyTesting

/// The project's survey as the fixtures define it: every stage in every language, and the
/// routing between stages.
public struct SurveyDefinitions: Sendable {
    public let questionnaires: [String: [KioskLanguage: Questionnaire]]
    public let routing: Routing
    /// The first stage.
    public let firstStage: String

    /// Loads `mock/questions/<stage>.<lang>.json` and `mock/routing.json`.
    public static func load() throws -> SurveyDefinitions {
        let stages = Fixtures.stages
        var responses: [String: [KioskLanguage: Data]] = [:]
        var names: Set<String> = []
        for stage in stages {
            for language in KioskLanguage.allCases {
                let data = try Fixtures.data("questions/\(stage).\(language.rawValue).json")
                responses[stage, default: [:]][language] = data
                names.formUnion(Questionnaire.formNames(inResponse: data))
            }
        }
        var questionnaires: [String: [KioskLanguage: Questionnaire]] = [:]
        for (stage, byLanguage) in responses {
            for (language, data) in byLanguage {
                questionnaires[stage, default: [:]][language] = try Questionnaire.decode(response: data, stage: stage, knownAnswerNames: names)
            }
        }
        let routing = try JSONDecoder().decode(Routing.self, from: Fixtures.data("routing.json"))
        return SurveyDefinitions(questionnaires: questionnaires, routing: routing, firstStage: stages[0])
    }

    /// The questionnaire of `stage` in `language`.
    public func questionnaire(_ stage: String, _ language: KioskLanguage) -> Questionnaire? {
        questionnaires[stage]?[language]
    }
}

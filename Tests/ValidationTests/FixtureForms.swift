import Entities
import SurveyTesting

/// Every form of the project's survey (`mock/questions/`, in English), by name.
enum FixtureForms {
    static func load() throws -> [String: Form] {
        var forms: [String: Form] = [:]
        for stage in Fixtures.stages {
            let q = try Questionnaire.decode(response: try Fixtures.data("questions/\(stage).en.json"), stage: stage)
            for form in q.forms { forms[form.name] = form }
        }
        return forms
    }
}

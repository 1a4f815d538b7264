#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Checks several questionnaire files together, as `surveyctl lint` does.
///
/// Files linted together may refer to each other's answers (`sameAS "$name"`, screening),
/// as stages of one survey do.
public enum DefinitionLint {
    /// The verdict on one file.
    public struct Report: Sendable {
        /// The name the file was given as (its path).
        public var source: String
        /// The stage name used in locations: the file name without `.json` and a language suffix.
        public var stage: String
        public var result: Result<Questionnaire, DefinitionErrors>

        /// The summary or the located errors, as lines.
        public var lines: [String] {
            switch result {
            case .success(let questionnaire):
                return ["\(source): ok, " + (questionnaire.summaryLines.first ?? "")] + questionnaire.summaryLines.dropFirst()
            case .failure(let errors):
                let count = errors.errors.count
                return ["\(source): \(count) definition error\(count == 1 ? "" : "s")"] + errors.errors.map { "  - \($0)" }
            }
        }
    }

    /// Lints the given files' contents.
    /// - Parameter files: (name, contents) pairs; the name gives the stage (`common.en.json` → `common`).
    public static func lint(_ files: [(name: String, contents: Data)]) -> [Report] {
        let namesPerFile = files.map { Set(Questionnaire.formNames(inResponse: $0.contents)) }
        return files.enumerated().map { index, file in
            var others: Set<String> = []
            for (otherIndex, names) in namesPerFile.enumerated() where otherIndex != index { others.formUnion(names) }
            let stage = stageName(forFile: file.name)
            let result: Result<Questionnaire, DefinitionErrors>
            do throws(DefinitionErrors) {
                result = .success(try Questionnaire.decode(response: file.contents, stage: stage, knownAnswerNames: others))
            } catch {
                result = .failure(error)
            }
            return Report(source: file.name, stage: stage, result: result)
        }
    }

    /// `mock/questions/common.en.json` → `common`; `api_question_1.json` → `1`.
    public static func stageName(forFile path: String) -> String {
        var name = URL(fileURLWithPath: path).lastPathComponent
        if name.hasSuffix(".json") { name.removeLast(5) }
        for language in [".ko", ".en"] where name.hasSuffix(language) { name.removeLast(language.count) }
        // Captured responses are often saved as `api_question_<typeID>.json`.
        if name.hasPrefix("api_question_") { name.removeFirst("api_question_".count) }
        return name
    }
}

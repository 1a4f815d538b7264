import ArgumentParser
import Entities
import Foundation

/// `surveyctl lint FILE...`: checks questionnaire files (GET /api/question response bodies).
struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check questionnaire files and summarise them.",
        discussion: """
            Each FILE is a GET /api/question/{typeID} response body. Files given together are \
            stages of one survey and may refer to each other's answers. Prints a summary of \
            each file, or every definition error with its location. Exits 0 when all files \
            are valid, 65 when any has definition errors, 66 when a file cannot be read.
            """
    )

    @Argument(help: "Questionnaire files to check.", completion: .file(extensions: ["json"]))
    var files: [String]

    func run() throws {
        var contents: [(name: String, contents: Data)] = []
        for file in files {
            do {
                contents.append((file, try Data(contentsOf: URL(fileURLWithPath: file))))
            } catch {
                printError("surveyctl lint: cannot read \(file): \(error.localizedDescription). Check the path and its permissions.")
                throw ExitCode(66)
            }
        }
        let reports = DefinitionLint.lint(contents)
        for report in reports {
            print(report.lines.joined(separator: "\n"))
        }
        let failed = reports.filter { if case .failure = $0.result { true } else { false } }.count
        if failed > 0 {
            printError("surveyctl lint: \(failed) of \(reports.count) file\(reports.count == 1 ? "" : "s") ha\(failed == 1 ? "s" : "ve") definition errors")
            throw ExitCode(65)
        }
    }
}

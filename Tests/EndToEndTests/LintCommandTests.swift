import Foundation
import SurveyTesting
import Testing

/// Runs the built `surveyctl` binary (CI runs `swift build` before `swift test`).
@Suite(.timeLimit(.minutes(10))) struct LintCommandTests {
    let surveyctl = PackagePaths.executable("surveyctl")

    func lint(_ arguments: [String]) async throws -> ProcessResult {
        let result = try await runProcess(surveyctl, ["lint"] + arguments, deadline: .seconds(30))
        #expect(!result.timedOut)
        return result
    }

    @Test func goodFilesPassWithASummary() async throws {
        let files = Fixtures.questionnairePaths.map { PackagePaths.fixture($0).path }
        let result = try await lint(files)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#"common.en.json: ok, stage "common": 5 forms, 1 screening rule"#))
        #expect(result.stdout.contains("screening: age minMax [19, -]"))
        #expect(result.stdout.components(separatedBy: ": ok,").count - 1 == files.count)
        #expect(result.stderr.isEmpty)
    }

    @Test func brokenFilesFailWithEveryLocatedError() async throws {
        let files = try Fixtures.brokenPaths().map { PackagePaths.fixture($0).path }
        let result = try await lint(files)
        #expect(result.status == 65)
        #expect(result.stdout.contains(#"many-errors.json: 6 definition errors"#))
        #expect(result.stdout.contains(#"- stage "unknown-form-type", forms[1] "when": unknown form type "date""#))
        #expect(result.stdout.contains(#"- stage "bad-patterns", forms[0] "code", validate[1]: pattern "/^[a-z]+$/gx": unsupported flags "gx""#))
        #expect(result.stderr.contains("surveyctl lint: \(files.count) of \(files.count) files have definition errors"))
    }

    @Test func oneBadFileAmongGoodOnesFails() async throws {
        let result = try await lint([PackagePaths.fixture("questions/common.ko.json").path, PackagePaths.fixture("broken/duplicate-names.json").path])
        #expect(result.status == 65)
        #expect(result.stdout.contains("common.ko.json: ok"))
        #expect(result.stderr.contains("1 of 2 files has definition errors"))
    }

    @Test func missingFileAndNoFile() async throws {
        let missing = try await lint(["/nonexistent/q.json"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("cannot read /nonexistent/q.json"))
        let none = try await lint([])
        #expect(none.status == 64)
        #expect(none.stderr.contains("Missing expected argument '<files> ...'"))
        #expect(none.stderr.contains("Usage: surveyctl lint <files> ..."))
    }
}

import ArgumentParser

/// `surveyctl`: the operator's command line for surveyd.
@main
struct SurveyCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "surveyctl",
        abstract: "Operate surveyd and check survey definitions.",
        discussion: """
            Exit codes: 0 success, 1 failure, 64 usage error, 65 bad data (e.g. definition \
            errors), 66 an input file cannot be read.
            """,
        subcommands: [Lint.self]
    )
}

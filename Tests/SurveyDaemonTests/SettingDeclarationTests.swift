import Entities

import Foundation
import SurveyDaemon
import SurveyTesting
import Testing

/// The declarations in `DaemonSetting.all` are consistent, and `doc/configuration.md` shows them.
@Suite(.timeLimit(.minutes(5))) struct SettingDeclarationTests {
    @Test func keysVariablesAndFlagsAreUnique() {
        let all = DaemonSetting.all
        #expect(Set(all.map(\.key)).count == all.count)
        #expect(Set(all.map(\.variable)).count == all.count)
        let flags = all.compactMap(\.flag)
        #expect(Set(flags).count == flags.count)
        for setting in all {
            #expect(setting.variable.hasPrefix("SURVEYD_"), "\(setting.key)")
            #expect(DaemonSetting.named(setting.key)?.variable == setting.variable)
            #expect(!setting.doc.isEmpty && !setting.doc.contains("\n"), "\(setting.key): one line of doc")
        }
    }

    /// Each property starts with its declared default, and the defaults pass their own checks.
    @Test func propertiesStartWithTheDeclaredDefaults() async throws {
        let defaults = DaemonConfiguration(environment: ["HOME": "/h"], userID: 1)
        let resolved = try await DaemonConfiguration.resolve(file: nil, environment: ["HOME": "/h"], userID: 1)
        #expect(resolved == defaults)
        for setting in DaemonSetting.all where setting.computedDefault == nil {
            #expect((setting.defaultValue == nil) == (setting.unsetMeaning != nil), "\(setting.key)")
        }
        #expect(DaemonSetting.of(\.maxInFlight).defaultValue == .wholeNumber(defaults.maxInFlight))
        #expect(DaemonSetting.of(\.idleSessionTimeoutSeconds).defaultValue == .number(defaults.idleSessionTimeoutSeconds))
        #expect(DaemonSetting.of(\.defaultLanguage).defaultValue == .text(defaults.defaultLanguage.rawValue))
    }

    /// The settings table in `doc/configuration.md` is the one the declarations render: a
    /// setting missing from the doc, one the doc has that is not declared, or a changed key,
    /// variable, flag, range, default or meaning all fail here.
    ///
    /// `SURVEYD_UPDATE_DOC=1 swift test --filter SettingDeclarationTests` writes the rendered
    /// table into the doc instead (and still fails this once, so that a run never passes on a
    /// doc it has just changed).
    @Test func documentationTableMatchesTheDeclarations() throws {
        let url = PackagePaths.root.appendingPathComponent("doc/configuration.md")
        let doc = try String(contentsOf: url, encoding: .utf8)
        let begin = "<!-- settings table: rendered from DaemonSetting.all; SettingDeclarationTests checks it -->\n"
        let end = "<!-- end of settings table -->"
        guard let start = doc.range(of: begin), let stop = doc.range(of: end, range: start.upperBound..<doc.endIndex) else {
            Issue.record("doc/configuration.md lacks the markers around its settings table: \(begin)\(end)")
            return
        }
        let documented = String(doc[start.upperBound..<stop.lowerBound])
        let rendered = DaemonSetting.markdownTable
        if documented != rendered, ProcessInfo.processInfo.environment["SURVEYD_UPDATE_DOC"] == "1" {
            try doc.replacingCharacters(in: start.upperBound..<stop.lowerBound, with: rendered).write(to: url, atomically: true, encoding: .utf8)
            Issue.record("wrote the settings table into doc/configuration.md; review it and run the test again")
            return
        }
        let documentedRows = Set(documented.split(separator: "\n"))
        let renderedRows = Set(rendered.split(separator: "\n"))
        #expect(documentedRows.subtracting(renderedRows).isEmpty, "rows in the doc that the declarations do not render: \(documentedRows.subtracting(renderedRows))")
        #expect(renderedRows.subtracting(documentedRows).isEmpty, "rows the declarations render that the doc lacks: \(renderedRows.subtracting(documentedRows))")
        #expect(documented == rendered, "paste this table into doc/configuration.md:\n\(rendered)")
    }

    @Test func flagHelpComesFromTheDeclaration() {
        let help = DaemonSetting.of(\.maxInFlight).help
        #expect(help == "Uploads in flight at once. Whole number, from 1 to 64. Default: 4. Environment: SURVEYD_MAX_IN_FLIGHT.")
        #expect(DaemonSetting.of(\.defaultLanguage).help == "Language of sessions that name none. Default: ko. Environment: SURVEYD_LANG.")
        #expect(DaemonSetting.of(\.defaultLanguage).valueName == "ko|en")
        #expect(DaemonSetting.of(\.idleSessionTimeoutSeconds).valueName == "seconds")
    }
}

import Foundation
import SurveyTesting
import Testing

/// `doc/install.sh` with the built binaries, staged under a temporary directory: the binaries,
/// the units pointing at the installed surveyd, and completion scripts for three shells. (The man
/// pages are left out here: generating them builds the tools once more.)
@Suite struct InstallScriptTests {
    @Test func stagesEverythingUnderThePrefix() async throws {
        let dir = try TemporaryDirectory(prefix: "install")
        defer { dir.remove() }
        let binaries = PackagePaths.executable("surveyd").deletingLastPathComponent().path
        let result = try await runProcess(
            URL(fileURLWithPath: "/bin/bash"),
            [PackagePaths.root.appending(path: "doc/install.sh").path, "--prefix", "/opt/surveyd", "--destdir", dir.path,
             "--unit-dir", "/etc/systemd/system", "--binaries", binaries, "--no-man"],
            deadline: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let root = dir.path + "/opt/surveyd"
        for file in ["bin/surveyd", "bin/surveyctl"] {
            #expect(FileManager.default.isExecutableFile(atPath: root + "/" + file), "\(file)")
        }
        let service = try String(contentsOfFile: dir.path + "/etc/systemd/system/surveyd.service", encoding: .utf8)
        #expect(service.contains("ExecStart=/opt/surveyd/bin/surveyd --config"))
        #expect(!service.contains("/usr/local/bin"))
        #expect(FileManager.default.fileExists(atPath: dir.path + "/etc/systemd/system/surveyd.socket"))
        for (path, word) in [
            ("share/bash-completion/completions/surveyctl", "requeue"), ("share/zsh/site-functions/_surveyctl", "requeue"),
            ("share/fish/vendor_completions.d/surveyctl.fish", "requeue"), ("share/bash-completion/completions/surveyd", "kiosk-listen"),
        ] {
            let text = (try? String(contentsOfFile: root + "/" + path, encoding: .utf8)) ?? ""
            #expect(text.contains(word), "\(path)")
        }
    }

    @Test func aRelativePrefixOrAnUnknownOptionIsAUsageError() async throws {
        let script = PackagePaths.root.appending(path: "doc/install.sh").path
        let relative = try await runProcess(URL(fileURLWithPath: "/bin/bash"), [script, "--prefix", "opt", "--no-man"], deadline: .seconds(30))
        #expect(relative.status == 64 && relative.stderr.contains("--prefix must be an absolute path"))
        let unknown = try await runProcess(URL(fileURLWithPath: "/bin/bash"), [script, "--frobnicate"], deadline: .seconds(30))
        #expect(unknown.status == 64 && unknown.stderr.contains("unknown option --frobnicate"))
    }
}

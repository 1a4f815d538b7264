#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// `doc/install.sh` with the built binaries, staged under a temporary directory: the binaries,
/// the units pointing at the installed surveyd, and completion scripts for three shells. (The man
/// pages are left out here: generating them builds the tools once more.)
@Suite(.timeLimit(.minutes(10))) struct InstallScriptTests {
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

    /// Where `systemd-creds` can seal (it needs root for the machine's credential secret).
    static let systemdCredsSeals = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-creds")

    /// The key `install.sh` makes is sealed with `systemd-creds encrypt`, owner-only, opens with
    /// `systemd-creds decrypt` to 32 bytes, and is kept by a second run.
    @Test(.enabled(if: systemdCredsSeals, "systemd-creds seals only as root (the machine's credential secret)"))
    func makesAKeySealedWithSystemdCredsThatOpensTo32Bytes() async throws {
        let dir = try TemporaryDirectory(prefix: "install")
        defer { dir.remove() }
        let binaries = PackagePaths.executable("surveyd").deletingLastPathComponent().path
        let key = dir.path + "/etc/surveyd/surveyd-key.cred"
        let arguments = [PackagePaths.root.appending(path: "doc/install.sh").path, "--prefix", "/opt/surveyd", "--destdir", dir.path,
                         "--binaries", binaries, "--no-man", "--key", key]
        let first = try await runProcess(URL(fileURLWithPath: "/bin/bash"), arguments, deadline: .seconds(60))
        #expect(first.status == 0, "\(first.stdout)\n\(first.stderr)")
        let sealed = try Data(contentsOf: URL(fileURLWithPath: key))
        var st = stat()
        #expect(stat(key, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let opened = try await runProcess(URL(fileURLWithPath: "/usr/bin/systemd-creds"), ["decrypt", "--name=surveyd-key", key, dir.path + "/plain"], deadline: .seconds(30))
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path + "/plain")).count == 32)
        #expect(sealed.count > 32)
        let second = try await runProcess(URL(fileURLWithPath: "/bin/bash"), arguments, deadline: .seconds(60))
        #expect(second.status == 0 && second.stdout.contains("kept"), "\(second.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: key)) == sealed)
        let service = try String(contentsOfFile: dir.path + "/etc/systemd/system/surveyd.service", encoding: .utf8)
        #expect(service.contains("LoadCredentialEncrypted=surveyd-key:/etc/surveyd/surveyd-key.cred"))
    }

    @Test func aRelativePrefixOrAnUnknownOptionIsAUsageError() async throws {
        let script = PackagePaths.root.appending(path: "doc/install.sh").path
        let relative = try await runProcess(URL(fileURLWithPath: "/bin/bash"), [script, "--prefix", "opt", "--no-man"], deadline: .seconds(30))
        #expect(relative.status == 64 && relative.stderr.contains("--prefix must be an absolute path"))
        let unknown = try await runProcess(URL(fileURLWithPath: "/bin/bash"), [script, "--frobnicate"], deadline: .seconds(30))
        #expect(unknown.status == 64 && unknown.stderr.contains("unknown option --frobnicate"))
    }
}

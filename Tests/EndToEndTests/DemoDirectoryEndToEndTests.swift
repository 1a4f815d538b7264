#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing

/// `surveyd --demo` without `--state-dir` uses `$TMPDIR/surveyd-demo-<uid>`: it makes it 0700,
/// and refuses (exit 78, saying what to do) one that others may write into or that is a link.
@Suite(.timeLimit(.minutes(10))) struct DemoDirectoryEndToEndTests {
    @Test func aMissingDemoDirectoryIsMadePrivate() async throws {
        let tmp = try TemporaryDirectory(prefix: "dt")
        defer { tmp.remove() }
        let path = tmp.path + "/surveyd-demo-\(getuid())"
        let demo = try await BackgroundProcess.start(PackagePaths.executable("surveyd"), ["--demo"], environment: ["TMPDIR": tmp.path], currentDirectory: PackagePaths.root, deadline: .seconds(60))
        let line = try await demo.waitForLine(containing: "control socket:")
        #expect(line.contains(path + "/surveyd.sock"), "\(line)")
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & 0o7777 == 0o700 && info.st_uid == getuid())
        #expect(await demo.stop() == 0, "\(demo.errorOutput)")
    }

    @Test func aDemoDirectoryOthersMayWriteIsRefused() async throws {
        let tmp = try TemporaryDirectory(prefix: "dt")
        defer { tmp.remove() }
        let path = tmp.path + "/surveyd-demo-\(getuid())"
        #expect(mkdir(path, 0o700) == 0 && chmod(path, 0o777) == 0)
        let result = try await runProcess(PackagePaths.executable("surveyd"), ["--demo"], environment: ["TMPDIR": tmp.path], currentDirectory: PackagePaths.root, deadline: .seconds(30))
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("surveyd: the demo directory \(path) may be written by group or others"), "\(result.stderr)")
        #expect(result.stderr.contains("mode 0777") && result.stderr.contains("--state-dir"), "\(result.stderr)")
        #expect(!result.stdout.contains("surveyd demo is running"))
    }

    @Test func aDemoDirectoryThatIsALinkIsRefused() async throws {
        let tmp = try TemporaryDirectory(prefix: "dt")
        defer { tmp.remove() }
        let path = tmp.path + "/surveyd-demo-\(getuid())"
        #expect(mkdir(tmp.path + "/elsewhere", 0o700) == 0 && symlink(tmp.path + "/elsewhere", path) == 0)
        let result = try await runProcess(PackagePaths.executable("surveyd"), ["--demo"], environment: ["TMPDIR": tmp.path], currentDirectory: PackagePaths.root, deadline: .seconds(30))
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("surveyd: the demo directory \(path) is a symbolic link"), "\(result.stderr)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: tmp.path + "/elsewhere")) == [], "nothing written through the link")
    }
}

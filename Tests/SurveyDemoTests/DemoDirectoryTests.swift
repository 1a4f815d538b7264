#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SurveyTesting
import Testing
@testable import SurveyDemo

/// The demo's directory under `$TMPDIR`: made 0700 when missing, refused when someone else may
/// own it or write into it, and never followed through a symbolic link.
@Suite(.timeLimit(.minutes(5))) struct DemoDirectoryTests {
    func mode(_ path: String) -> mode_t {
        var info = stat()
        #expect(lstat(path, &info) == 0)
        return info.st_mode & 0o7777
    }

    @Test func aMissingDirectoryIsMadePrivate() throws {
        let parent = try TemporaryDirectory(prefix: "dd")
        defer { parent.remove() }
        let path = parent.path + "/surveyd-demo"
        try DemoDirectory.prepare(path)
        #expect(mode(path) == 0o700)
        // Made, it is accepted the next time, as is a private directory of one's own.
        try DemoDirectory.prepare(path)
        #expect(chmod(path, 0o755) == 0)
        try DemoDirectory.prepare(path)
    }

    @Test(arguments: [0o770, 0o702, 0o777, 0o1777] as [mode_t])
    func aDirectoryOthersMayWriteIsRefused(permissions: mode_t) throws {
        let parent = try TemporaryDirectory(prefix: "dd")
        defer { parent.remove() }
        let path = parent.path + "/surveyd-demo"
        #expect(mkdir(path, 0o700) == 0 && chmod(path, permissions) == 0)
        let error = try #require(throws: DemoDirectoryError.self) { try DemoDirectory.prepare(path) }
        #expect(error.message.contains("the demo directory \(path) may be written by group or others"), "\(error.message)")
        #expect(error.message.contains("mode 0\(String(permissions, radix: 8))"), "\(error.message)")
        #expect(error.message.contains("chmod 700 \(path)") && error.message.contains("--state-dir"), "\(error.message)")
    }

    @Test func aDirectoryOfSomeoneElseIsRefused() throws {
        let parent = try TemporaryDirectory(prefix: "dd")
        defer { parent.remove() }
        let path = parent.path + "/surveyd-demo"
        #expect(mkdir(path, 0o700) == 0)
        // The directory is the test's; the user the check is made for is another one.
        let someoneElse = getuid() + 4242
        let error = try #require(throws: DemoDirectoryError.self) { try DemoDirectory.prepare(path, userID: someoneElse) }
        #expect(error.message.contains("the demo directory \(path) belongs to someone else"), "\(error.message)")
        #expect(error.message.contains("(uid \(getuid())), mode 0700") && error.message.contains("not to you (uid \(someoneElse))"), "\(error.message)")
        #expect(error.message.contains("rm -r \(path)") && error.message.contains("--state-dir DIR"), "\(error.message)")
    }

    @Test func aSymbolicLinkIsNotFollowed() throws {
        let parent = try TemporaryDirectory(prefix: "dd")
        defer { parent.remove() }
        let target = parent.path + "/elsewhere"
        let path = parent.path + "/surveyd-demo"
        // A private directory of one's own, reached through a link someone put there.
        #expect(mkdir(target, 0o700) == 0 && symlink(target, path) == 0)
        let error = try #require(throws: DemoDirectoryError.self) { try DemoDirectory.prepare(path) }
        #expect(error.message.contains("the demo directory \(path) is a symbolic link"), "\(error.message)")
        // A dangling link is not followed either: nothing is made where it points.
        #expect(rmdir(target) == 0)
        #expect(throws: DemoDirectoryError.self) { try DemoDirectory.prepare(path) }
        #expect(access(target, F_OK) != 0)
    }

    @Test func aFileInItsPlaceIsRefused() throws {
        let parent = try TemporaryDirectory(prefix: "dd")
        defer { parent.remove() }
        let path = parent.path + "/surveyd-demo"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let error = try #require(throws: DemoDirectoryError.self) { try DemoDirectory.prepare(path) }
        #expect(error.message.contains("the demo directory \(path) is not a directory"), "\(error.message)")
    }
}

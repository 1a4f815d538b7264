#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Storage
import SurveyTesting
import Testing

/// The device id: made once, kept owner-only in the state directory, read back the same.
@Suite(.timeLimit(.minutes(5))) struct DeviceIdentityTests {
    @Test func madeOnceAndKept() throws {
        let dir = try TemporaryDirectory(prefix: "device")
        defer { dir.remove() }
        let first = try DeviceIdentity.loadOrCreate(in: dir.path)
        #expect(DeviceIdentity.isValid(first))
        let again = try DeviceIdentity.loadOrCreate(in: dir.path)
        #expect(again == first)
        var info = stat()
        #expect(stat(dir.path + "/device-id", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/device-id.tmp"))
    }

    @Test func aFileWithoutAnIdIsNamed() throws {
        let dir = try TemporaryDirectory(prefix: "device")
        defer { dir.remove() }
        try Data("not an id!\n".utf8).write(to: dir.appending("device-id"))
        #expect {
            _ = try DeviceIdentity.loadOrCreate(in: dir.path)
        } throws: { error in
            "\(error)".contains("device-id") && "\(error)".contains("does not hold a device id")
        }
    }

    @Test(arguments: [("kiosk-7", true), ("a.b_c", true), ("", false), ("with space", false), (String(repeating: "x", count: 65), false)])
    func validIds(text: String, valid: Bool) {
        #expect(DeviceIdentity.isValid(text) == valid)
    }
}

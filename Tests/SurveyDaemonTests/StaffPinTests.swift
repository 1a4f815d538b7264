import ControlAPI
import Foundation
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// The staff PIN's hash and its file: what `surveyctl staff-pin set` writes and the daemon reads.
@Suite(.timeLimit(.minutes(5))) struct StaffPinTests {
    /// The fewest iterations a file may name: keeps these tests quick.
    static let quick = StaffPinHash.iterationRange.lowerBound

    @Test func aHashMatchesItsPinOnly() throws {
        let hash = try StaffPinHash(pin: "482159", iterations: Self.quick)
        #expect(hash.matches("482159"))
        for other in ["482158", "48215", "4821590", "", "４８２１５９", "482159 "] {
            #expect(!hash.matches(other), "\(other)")
        }
    }

    @Test func twoHashesOfOnePinDifferByTheirSalt() throws {
        let one = try StaffPinHash(pin: "1234", iterations: Self.quick)
        let two = try StaffPinHash(pin: "1234", iterations: Self.quick)
        #expect(one.line != two.line)
        #expect(one.matches("1234") && two.matches("1234"))
    }

    @Test func aNewHashUsesPBKDF2SHA256WithOWASPsIterations() throws {
        #expect(StaffPinHash.defaultIterations == 600_000)
        let hash = try StaffPinHash(pin: "2468")
        let fields = hash.line.split(separator: " ")
        #expect(fields.prefix(4) == ["surveyd-staff-pin", "1", "pbkdf2-sha256", "600000"])
        #expect(Data(base64Encoded: String(fields[4]))?.count == 16)
        #expect(Data(base64Encoded: String(fields[5].dropLast()))?.count == 32)
        #expect(hash.line.last == "\n")
        #expect(!hash.line.contains("2468"))
    }

    @Test(arguments: [
        ("123", "3 digits; give 4 to 12"),
        ("1234567890123", "13 digits; give 4 to 12"),
        ("12a4", "digits only"),
        (" 1234", "digits only"),
        ("", "0 digits"),
    ])
    func aPinThatIsNotFourToTwelveDigitsIsRefused(pin: String, says: String) {
        #expect {
            try StaffPinHash.check(pin)
        } throws: { error in
            "\(error)".contains(says) && (pin.isEmpty || !"\(error)".contains(pin))
        }
    }

    @Test func theFileRoundTripsWithModeOwnerOnly() throws {
        let dir = try TemporaryDirectory(prefix: "pin")
        defer { dir.remove() }
        let path = dir.appending("staff-pin").path
        let hash = try StaffPinHash(pin: "97531", iterations: Self.quick)
        try hash.write(to: path)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let read = try StaffPinHash.load(from: path)
        #expect(read == hash)
        #expect(read.matches("97531"))
    }

    @Test(arguments: [
        ("group", "is open to group or others (mode 640); make it owner-only: chmod 600"),
        ("others", "is open to group or others (mode 604); make it owner-only: chmod 600"),
        ("missing", "cannot be read (No such file or directory)"),
        ("garbage", "it is not a staff PIN file"),
        ("iterations", "its iteration count 10 is not from 210000"),
        ("directory", "is not a regular file"),
    ])
    func aBadFileIsRefusedNamingIt(kind: String, says: String) throws {
        let dir = try TemporaryDirectory(prefix: "pin")
        defer { dir.remove() }
        let path = dir.appending("staff-pin").path
        let good = try StaffPinHash(pin: "1357", iterations: Self.quick)
        switch kind {
        case "group", "others":
            try good.write(to: path)
            chmod(path, kind == "group" ? 0o640 : 0o604)
        case "garbage":
            FileManager.default.createFile(atPath: path, contents: Data("1357\n".utf8), attributes: [.posixPermissions: 0o600])
        case "iterations":
            let line = good.line.replacingOccurrences(of: " \(Self.quick) ", with: " 10 ")
            FileManager.default.createFile(atPath: path, contents: Data(line.utf8), attributes: [.posixPermissions: 0o600])
        case "directory":
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        default:
            break
        }
        var configuration = DaemonConfiguration(environment: [:], userID: 0)
        configuration.kioskStaffPinFile = path
        #expect {
            try StaffPinFile.load(configuration)
        } throws: { error in
            let text = "\(error)"
            return error is ConfigurationError && text.contains("kioskStaffPinFile") && text.contains(path) && text.contains(says)
        }
    }

    @Test func withoutTheSettingTheStaffScreenIsOff() throws {
        #expect(try StaffPinFile.load(DaemonConfiguration(environment: [:], userID: 0)) == nil)
    }

    @Test func systemdsCredentialIsTheDefaultFile() throws {
        let dir = try TemporaryDirectory(prefix: "cred")
        defer { dir.remove() }
        try StaffPinHash(pin: "8642", iterations: Self.quick).write(to: dir.appending("surveyd-staff-pin").path)
        let configuration = DaemonConfiguration(environment: ["CREDENTIALS_DIRECTORY": dir.path], userID: 0)
        #expect(configuration.kioskStaffPinFile == dir.appending("surveyd-staff-pin").path)
        #expect(try StaffPinFile.load(configuration)?.matches("8642") == true)
    }
}

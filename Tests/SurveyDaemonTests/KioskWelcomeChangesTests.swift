import Foundation
import Kiosk
import Logging
import SurveyTesting
import Testing
@testable import SurveyDaemon

/// What the welcome screen's held request waits for in the daemon: the next boundary of the
/// opening hours, the desk's signal at every change, and the attract folder read and refused with
/// the file and the limit named.
@Suite(.timeLimit(.minutes(5))) struct KioskWelcomeChangesTests {
    static let seoul = KioskOpenHoursTests.seoul
    static func at(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Date { KioskOpenHoursTests.at(day, hour, minute) }

    @Test func theNextBoundaryIsWhereTheHoursOpenOrClose() throws {
        let hours = try KioskOpenHours(parsing: "Mo-Fr 09:00-12:00 12:00-18:00, Sa 10:00-14:00")
        // Monday 08:00 → opens at 09:00; 10:00 → closes at 18:00 (12:00 joins two ranges).
        #expect(hours.nextBoundary(after: Self.at(23, 8), timeZone: Self.seoul) == Self.at(23, 9))
        #expect(hours.nextBoundary(after: Self.at(23, 10), timeZone: Self.seoul) == Self.at(23, 18))
        // Exactly at opening: the next is the closing.
        #expect(hours.nextBoundary(after: Self.at(23, 9), timeZone: Self.seoul) == Self.at(23, 18))
        // Friday 18:00 → Saturday 10:00; Saturday 14:00 → Monday 09:00, over the closed Sunday.
        #expect(hours.nextBoundary(after: Self.at(27, 18), timeZone: Self.seoul) == Self.at(28, 10))
        #expect(hours.nextBoundary(after: Self.at(28, 14), timeZone: Self.seoul) == Self.at(30, 9))
    }

    @Test func hoursThatNeverChangeHaveNoBoundaryAndMidnightIsOne() throws {
        let always = try KioskOpenHours(parsing: "Mo-Su 00:00-24:00")
        #expect(always.nextBoundary(after: Self.at(23, 10), timeZone: Self.seoul) == nil)
        let late = try KioskOpenHours(parsing: "Mo 22:00-24:00")
        #expect(late.nextBoundary(after: Self.at(23, 23), timeZone: Self.seoul) == Self.at(24, 0))
    }

    @Test func everyChangeOfTheDeskSignalsTheWelcomeScreens() async throws {
        let dir = try TemporaryDirectory(prefix: "desk")
        defer { dir.remove() }
        let desk = try KioskStaffDeskTests.desk(dir, clock: KioskStaffDeskTests.Clock())
        var seen = desk.changes.version
        try await desk.setOutOfService(message: "Back soon", by: .operator)
        #expect(desk.changes.version > seen)
        seen = desk.changes.version
        try await desk.setInService(by: .staff)
        #expect(desk.changes.version > seen)
        seen = desk.changes.version
        try await desk.chooseSurvey("shop", by: .staff)
        #expect(desk.changes.version > seen)
        seen = desk.changes.version
        await desk.reload(pin: nil, surveys: KioskStaffDeskTests.surveys)
        #expect(desk.changes.version > seen)
        #expect(await DaemonStaffBackend.nextChange(of: desk) == nil)
    }

    static let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16]
    static let svg = Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)

    static func folder(_ files: [(String, [UInt8])]) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory(prefix: "attract")
        for (name, bytes) in files { try Data(bytes).write(to: dir.appending(name)) }
        return dir
    }

    @Test func theFolderIsReadInTheOrderOfItsNamesJudgedByContent() throws {
        let dir = try Self.folder([("b.jpg", Self.jpeg), ("a.svg", Self.svg), ("c.bin", Self.png), (".hidden", [1, 2, 3])])
        defer { dir.remove() }
        try FileManager.default.createDirectory(at: dir.appending("sub"), withIntermediateDirectories: true)
        var configuration = DaemonConfiguration(environment: [:], userID: 1000)
        configuration.kioskAttractFolder = dir.path
        let images = try KioskAttractFiles.images(from: configuration)
        #expect(images.map(\.name) == ["a.svg", "b.jpg", "c.bin"])
        #expect(images.map(\.format) == [.svg, .jpeg, .png])
        configuration.kioskAttractFolder = nil
        #expect(try KioskAttractFiles.images(from: configuration).isEmpty)
    }

    @Test func aFileThatIsNoImageOrTooLargeIsRefusedByNameWithTheLimit() throws {
        let gif = try Self.folder([("a.png", Self.png), ("b.png", Array("GIF89a".utf8))])
        defer { gif.remove() }
        var configuration = DaemonConfiguration(environment: [:], userID: 1000)
        configuration.kioskAttractFolder = gif.path
        #expect {
            try KioskAttractFiles.images(from: configuration)
        } throws: { error in
            let message = (error as? ConfigurationError).map { "\($0)" } ?? ""
            return message.contains("kioskAttractFolder") && message.contains("\(gif.path)/b.png is not a PNG, JPEG or SVG image")
        }
        let large = try Self.folder([("big.png", Self.png + [UInt8](repeating: 0, count: KioskAttractImage.maxBytes))])
        defer { large.remove() }
        configuration.kioskAttractFolder = large.path
        #expect {
            try KioskAttractFiles.images(from: configuration)
        } throws: { error in
            let message = (error as? ConfigurationError).map { "\($0)" } ?? ""
            return message.contains("\(large.path)/big.png has more than 2097152 bytes (2 MiB)")
        }
        configuration.kioskAttractFolder = large.path + "/none"
        #expect(throws: ConfigurationError.self) { try KioskAttractFiles.images(from: configuration) }
    }

    @Test func theFolderMayHoldAtMostItsTotal() throws {
        let chunk = Self.png + [UInt8](repeating: 0, count: KioskAttractImage.maxBytes - Self.png.count)
        let files = (0..<9).map { (String(format: "%02d.png", $0), chunk) }
        let dir = try Self.folder(files)
        defer { dir.remove() }
        #expect {
            try KioskAttractFiles.read(dir.path)
        } throws: { error in
            let message = (error as? KioskBrandError)?.message ?? ""
            return (error as? KioskBrandError)?.code == .attractTooLarge && message.contains("16 MiB") && message.contains("08.png")
        }
    }
}

extension DaemonStaffBackend {
    /// The desk's next hours boundary, as the held request reads it (none without hours).
    static func nextChange(of desk: KioskStaffDesk) async -> Date? { desk.nextHoursBoundary }
}

import Entities

import Foundation
import Kiosk
import Logging
@testable import SurveyDaemon
import SurveyTesting
import Synchronization
import Testing

/// The settings of the survey and the brand: what `resolve` refuses (exit 78 at start), the logo
/// file's checks, and a reload (SIGHUP) that keeps the logo shown when the new one is refused.
@Suite(.timeLimit(.minutes(5))) struct KioskBrandSettingsTests {
    static let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><circle r="2" cx="2" cy="2"/></svg>"#.utf8)
    static let png = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + [UInt8](repeating: 7, count: 64))

    func message(_ env: [String: String]) async -> String? {
        do {
            _ = try await DaemonConfiguration.resolve(file: nil, environment: env.merging(["HOME": "/h"]) { a, _ in a }, userID: 1)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func defaultsAndRefusals() async throws {
        let defaults = DaemonConfiguration(environment: ["HOME": "/h"], userID: 1)
        #expect(defaults.firstStage == "common")
        #expect(defaults.kioskLanguages == nil)
        #expect(defaults.kioskLogoFile == nil && defaults.kioskAccentColor == nil)
        #expect(await message(["SURVEYD_KIOSK_ACCENT_COLOR": "#7fb3ff"]) == "surveyd configuration: environment variable SURVEYD_KIOSK_ACCENT_COLOR: #7fb3ff has a contrast of 2.14:1 with white; white text on it and it on white need at least 4.5:1 (WCAG AA): choose a darker colour")
        #expect(await message(["SURVEYD_KIOSK_ACCENT_COLOR": "navy"]) == #"surveyd configuration: environment variable SURVEYD_KIOSK_ACCENT_COLOR: "navy" is not a colour written #rrggbb (e.g. #0a4a94)"#)
        #expect(await message(["SURVEYD_KIOSK_ACCENT_COLOR": "#1a5c2e"]) == nil)
        #expect(await message(["SURVEYD_KIOSK_LANGUAGES": "en,ja"]) == #"surveyd configuration: environment variable SURVEYD_KIOSK_LANGUAGES: "ja" is not a language the kiosk pages have words for; give one or more of ko, en, comma-separated (e.g. ko,en)"#)
        #expect(await message(["SURVEYD_FIRST_STAGE": "spring survey"]) == #"surveyd configuration: environment variable SURVEYD_FIRST_STAGE: "spring survey" is not a stage's typeId; use 1 to 64 letters, digits, - or _ (e.g. common)"#)
        #expect(await message(["SURVEYD_FIRST_STAGE": "2"]) == nil)
    }

    @Test func theKioskOffersTheConfiguredLanguagesTheFirstByDefault() {
        var configuration = DaemonConfiguration(environment: ["HOME": "/h"], userID: 1)
        configuration.defaultLanguage = .ko
        configuration.kioskLanguages = "en"
        let settings = KioskServer.settings(from: configuration)
        #expect(settings.languages == [.en] && settings.defaultLanguage == .en)
        configuration.kioskLanguages = "ko,en"
        #expect(KioskServer.settings(from: configuration).languages == [.ko, .en])
        // Unset: the daemon's default language first, then the other.
        configuration.kioskLanguages = nil
        #expect(KioskServer.settings(from: configuration).languages == [.ko, .en])
        configuration.defaultLanguage = .en
        #expect(KioskServer.settings(from: configuration).languages == [.en, .ko])
        #expect(KioskServer.settings(from: configuration).defaultLanguage == .en)
    }

    @Test func aLogoFileThatCannotBeUsedIsRefusedNamingTheFile() throws {
        let dir = try TemporaryDirectory(prefix: "logo")
        defer { dir.remove() }
        var configuration = DaemonConfiguration(environment: ["HOME": "/h"], userID: 1)
        func refusal(_ file: String) -> String? {
            configuration.kioskLogoFile = file
            do {
                _ = try KioskBrandFiles.brand(from: configuration)
                return nil
            } catch {
                return error.description
            }
        }
        let missing = dir.appending("none.svg").path
        #expect(refusal(missing) == "surveyd configuration: kioskLogoFile: the logo \(missing) does not exist; give the path of a PNG or SVG file, or leave kioskLogoFile out")
        #expect(refusal(dir.path) == "surveyd configuration: kioskLogoFile: the logo \(dir.path) is a directory; give the path of a PNG or SVG file")
        let big = dir.appending("big.png")
        try (Self.png + Data(count: KioskLogo.maxBytes)).write(to: big)
        #expect(refusal(big.path) == "surveyd configuration: kioskLogoFile: the logo \(big.path) is \(KioskLogo.maxBytes + 1) bytes; a logo may have at most 524288 (512 KiB): make it smaller")
        let jpeg = dir.appending("logo.png")
        try Data([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]).write(to: jpeg)
        #expect(refusal(jpeg.path) == "surveyd configuration: kioskLogoFile: the logo \(jpeg.path) is neither a PNG nor an SVG image (judged by its content, not its name): give a PNG or SVG file")
        let svg = dir.appending("logo.svg")
        try Self.svg.write(to: svg)
        configuration.kioskLogoFile = svg.path
        #expect(try KioskBrandFiles.brand(from: configuration).logo?.format == .svg)
    }

    @Test func aReloadReadsTheLogoAgainAndKeepsTheOldOneWhenTheNewIsRefused() async throws {
        let dir = try TemporaryDirectory(prefix: "rlb")
        defer { dir.remove() }
        let logo = dir.appending("logo.svg")
        try Self.svg.write(to: logo)
        let configuration = try await InProcessDaemon.configuration(in: dir) { flags in
            flags[\.kioskListen] = "127.0.0.1:0"
            flags[\.kioskLogoFile] = logo.path
        }
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: Logger(label: "t"))
        let brand = try #require(daemon.kiosk?.brand)
        #expect(brand.brand.logo?.format == .svg)
        let log = CapturedLog()
        let next = Mutex(configuration)
        let reloader = ConfigurationReloader(current: configuration, daemon: daemon, logLevel: DaemonLogLevel(.info), logger: log.logger) { () async throws(ConfigurationError) in
            next.withLock { $0 }
        }

        // The same path, new bytes: read again.
        try Self.png.write(to: logo)
        _ = await reloader.reload()
        #expect(brand.brand.logo?.format == .png)

        // A file that is no image: the PNG stays, the refusal is logged.
        try Data("GIF89a".utf8).write(to: logo)
        _ = await reloader.reload()
        #expect(brand.brand.logo?.format == .png)
        #expect(log.contains(.error, "kiosk logo not reloaded: the logo \(logo.path) is neither a PNG nor an SVG image"), "\(log.lines.withLock { $0.map(\.message) })")

        // A path that is not there: the same; the accent colour is applied all the same.
        next.withLock {
            $0.kioskLogoFile = dir.appending("gone.svg").path
            $0.kioskAccentColor = "#1a5c2e"
        }
        let changes = await reloader.reload()
        #expect(changes?.applied == ["kioskLogoFile", "kioskAccentColor"])
        #expect(brand.brand.logo?.format == .png)
        #expect(brand.brand.accent?.hex == "#1a5c2e")
        #expect(await reloader.current.kioskLogoFile == logo.path, "the refused path is not taken")
        #expect(log.contains(.error, "kiosk logo not reloaded: the logo \(dir.appending("gone.svg").path) does not exist"))
        await daemon.close()
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Kiosk
import KioskTesting
import Testing

/// The brand an operator sets: the accent colour's contrast, the logo's checks, and how the pages
/// serve and show both.
@Suite(.timeLimit(.minutes(5))) struct KioskBrandTests {
    static let svg = Array(##"<?xml version="1.0"?><!-- logo --><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="#123"/></svg>"##.utf8)
    static let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + Array(repeating: 0, count: 32)

    @Test(arguments: [("#0a4a94", 8.68), ("#767676", 4.54), ("#000000", 21.0), ("#1A5C2E", 8.03)])
    func aColourWithEnoughContrastIsAccepted(color: String, ratio: Double) throws {
        let accent = try KioskAccentColor(color)
        #expect(abs(accent.contrastWithWhite - ratio) < 0.01, "\(accent.contrastWithWhite)")
        #expect(accent.hex == color.lowercased())
    }

    @Test(arguments: [("#7fb3ff", "2.14"), ("#777777", "4.47"), ("#ffffff", "1.00"), ("#ff0000", "3.99"), ("#2e8b57", "4.24")])
    func aColourWithTooLittleContrastIsRefusedWithItsRatio(color: String, ratio: String) {
        #expect {
            _ = try KioskAccentColor(color)
        } throws: { error in
            let error = error as? KioskBrandError
            return error?.code == .lowContrast
                && error?.message == "\(color) has a contrast of \(ratio):1 with white; white text on it and it on white need at least 4.5:1 (WCAG AA): choose a darker colour"
        }
    }

    @Test(arguments: ["0a4a94", "#0a4a9", "#0a4a944", "#0g4a94", "blue", "", "#+a4a94"])
    func aColourNotWrittenRrggbbIsRefused(text: String) {
        #expect {
            _ = try KioskAccentColor(text)
        } throws: { error in
            (error as? KioskBrandError)?.code == .badColor && (error as? KioskBrandError)?.message.contains("is not a colour written #rrggbb") == true
        }
    }

    @Test func aLogoIsAPngOrAnSvgByItsContent() throws {
        #expect(try KioskLogo(bytes: Self.png, file: "logo.svg").format == .png)
        #expect(try KioskLogo(bytes: Self.svg, file: "logo.png").format == .svg)
        let bare = Array("\u{FEFF}\n  <svg viewBox=\"0 0 1 1\"></svg>".utf8)
        #expect(try KioskLogo(bytes: bare, file: "l").format == .svg)
        let doctype = Array(#"<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x"><svg/>"#.utf8)
        #expect(try KioskLogo(bytes: doctype, file: "l").format == .svg)
    }

    @Test(arguments: [
        Array("GIF89a".utf8), Array("<html><svg></svg></html>".utf8), Array("<svgx/>".utf8), [0xff, 0xd8, 0xff, 0xe0], [],
        Array(Array("<svg>".utf8).dropLast(1)) + [0xc3],
    ] as [[UInt8]])
    func aFileThatIsNeitherIsRefused(bytes: [UInt8]) {
        #expect {
            _ = try KioskLogo(bytes: bytes, file: "/etc/kiosk/logo.png")
        } throws: { error in
            (error as? KioskBrandError)?.message == "the logo /etc/kiosk/logo.png is neither a PNG nor an SVG image (judged by its content, not its name): give a PNG or SVG file"
        }
    }

    @Test func aLogoOver512KiBIsRefusedWithItsSize() throws {
        _ = try KioskLogo(bytes: Self.png + Array(repeating: 0, count: KioskLogo.maxBytes - Self.png.count), file: "l")
        #expect {
            _ = try KioskLogo(bytes: Self.png + Array(repeating: 0, count: KioskLogo.maxBytes), file: "big.png")
        } throws: { error in
            (error as? KioskBrandError)?.message == "the logo big.png is \(KioskLogo.maxBytes + Self.png.count) bytes; a logo may have at most 524288 (512 KiB): make it smaller"
        }
    }

    @Test func theLanguagesListKeepsItsOrderAndNamesWhatItRefuses() throws {
        #expect(try KioskLanguage.list("en,ko") == [.en, .ko])
        #expect(try KioskLanguage.list(" ko ") == [.ko])
        #expect {
            _ = try KioskLanguage.list("ko,fr,de")
        } throws: { error in
            (error as? KioskSettingsError)?.message == #""fr", "de" are not languages the kiosk pages have words for; give one or more of ko, en, comma-separated (e.g. ko,en)"#
        }
        #expect {
            _ = try KioskLanguage.list("")
        } throws: { error in
            (error as? KioskSettingsError)?.message == #""" is not a language the kiosk pages have words for; give one or more of ko, en, comma-separated (e.g. ko,en)"#
        }
        #expect {
            _ = try KioskLanguage.list("ko,en,ko")
        } throws: { error in
            (error as? KioskSettingsError)?.message == "ko is given twice; give each language once"
        }
    }

    @Test func theWelcomeScreenShowsTheLogoAndEveryPageTheAccentSheet() async throws {
        var fixture = try KioskFixture()
        fixture.brand = KioskBrandStore(KioskBrand(logo: try KioskLogo(bytes: Self.svg, file: "l"), accent: try KioskAccentColor("#1A5C2E")))
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let welcome = try await browser.open("/")
            let logo = try #require(Self.attribute("src", of: "<img class=\"logo\"", in: welcome.body))
            #expect(logo.hasPrefix("/brand/logo.") && logo.hasSuffix(".svg"), "\(logo)")
            #expect(welcome.contains("<img class=\"logo\" src=\"\(logo)\" alt=\"\">"))
            let sheet = try #require(Self.attribute("href", of: "<link rel=\"stylesheet\" href=\"/brand/", in: welcome.body, prefix: "/brand/"))
            #expect(sheet.hasPrefix("/brand/accent.") && sheet.hasSuffix(".css"))
            // The SVG from memory, with its own policy; the page's policy stays on the pages.
            let image = try await browser.send(logo, method: .get)
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/svg+xml")
            #expect(image.headers[values: .contentSecurityPolicy] == ["default-src 'none'; style-src 'unsafe-inline'; sandbox"])
            #expect(image.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(image.headers[.xContentTypeOptions] == "nosniff")
            #expect(Array(image.body.readableBytesView) == Self.svg)
            let css = try await browser.send(sheet, method: .get)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            #expect(String(buffer: css.body) == ":root { --accent: #1a5c2e; --accent-soft: #e4ebe6; }\n")
            #expect(css.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'self'") == true)
            // Question pages carry the sheet too, but no logo.
            let question = try await browser.start(.en)
            #expect(question.contains("<link rel=\"stylesheet\" href=\"\(sheet)\">"))
            #expect(!question.contains("<img"))
            #expect(try await browser.send("/brand/logo.0000.svg", method: .get).status == .notFound)
        }
    }

    @Test func aReplacedBrandShowsOnTheNextPageAndTheOldPathsAreGone() async throws {
        var fixture = try KioskFixture()
        fixture.brand = KioskBrandStore(KioskBrand(logo: try KioskLogo(bytes: Self.svg, file: "l")))
        let brand = fixture.brand
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let before = try #require(Self.attribute("src", of: "<img class=\"logo\"", in: try await browser.open("/").body))
            #expect(!browser.page.contains("/brand/accent."))
            brand.replace(with: KioskBrand(logo: try KioskLogo(bytes: Self.png, file: "l"), accent: try KioskAccentColor("#0a4a94")))
            let after = try #require(Self.attribute("src", of: "<img class=\"logo\"", in: try await browser.open("/").body))
            #expect(after.hasSuffix(".png") && after != before)
            #expect(browser.page.contains("/brand/accent."))
            #expect(try await browser.send(before, method: .get).status == .notFound)
            let png = try await browser.send(after, method: .get)
            #expect(png.headers[.contentType] == "image/png")
            #expect(png.headers[values: .contentSecurityPolicy].first?.hasPrefix("default-src 'self'") == true)
            brand.replace(with: KioskBrand())
            #expect(!(try await browser.open("/").contains("<img")))
        }
    }

    @Test func theWelcomeScreenOffersTheConfiguredLanguagesInOrder() async throws {
        var fixture = try KioskFixture()
        fixture.settings.languages = [.en, .ko]
        fixture.settings.defaultLanguage = .en
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await browser.open("/")
            #expect(page.contains("<html lang=\"en\" "))
            let en = try #require(page.body.range(of: "hreflang=\"en\""))
            let ko = try #require(page.body.range(of: "hreflang=\"ko\""))
            #expect(en.lowerBound < ko.lowerBound)
        }
    }

    @Test func withOneLanguageTheWelcomeScreenOffersNoChoiceAndRefusesAnother() async throws {
        var fixture = try KioskFixture()
        fixture.settings.languages = [.en]
        fixture.settings.defaultLanguage = .en
        try await fixture.run { client in
            let browser = TestBrowser(client)
            let page = try await browser.open("/?lang=ko")
            #expect(page.contains("<html lang=\"en\" "))
            #expect(!page.contains("<nav class=\"languages\""))
            let csrf = page.hidden("csrf", in: "start-form") ?? ""
            let refused = try await browser.post("/start", [("csrf", csrf), ("lang", "ko")])
            #expect(refused.status == .badRequest)
            #expect(refused.contains("field &quot;lang&quot; must be one of en") || refused.contains("field \"lang\" must be one of en"), "\(refused.body)")
            let started = try await browser.start(.en)
            #expect(started.question == "name")
        }
    }

    @Test func settingsWhoseDefaultIsNotOfferedAreRefused() {
        #expect {
            try KioskSettings(defaultLanguage: .ko, languages: [.en]).check()
        } throws: { error in
            (error as? KioskSettingsError)?.message == "the default language ko is not one of the languages offered (en)"
        }
    }

    /// The value of `name` in the first tag starting with `tag`.
    static func attribute(_ name: String, of tag: String, in body: String, prefix: String = "") -> String? {
        guard let start = body.range(of: tag) else { return nil }
        let rest = body[start.lowerBound...]
        guard let value = rest.range(of: "\(name)=\"")?.upperBound, let end = rest[value...].firstIndex(of: "\"") else { return nil }
        let found = String(rest[value..<end])
        return found.hasPrefix(prefix) ? found : nil
    }
}

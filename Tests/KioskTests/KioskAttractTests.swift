import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskTesting
import NIOCore
import Synchronization
import Testing

@testable import Kiosk

/// The welcome screen's attract loop: images judged by their content and size, the loop in the
/// welcome page only when there are images (never on the closed screen), its images served from
/// memory under hashed paths for a year.
@Suite(.timeLimit(.minutes(5))) struct KioskAttractTests {
    static let png = KioskLogo.pngSignature + [0, 0, 0, 13, 73, 72, 68, 82]
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 74, 70]
    static let svg = Array("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>".utf8)

    @Test(arguments: [(png, KioskAttractImage.Format.png), (jpeg, .jpeg), (svg, .svg)])
    func anImageIsJudgedByItsContent(bytes: [UInt8], format: KioskAttractImage.Format) throws {
        #expect(try KioskAttractImage(bytes: bytes, name: "x", file: "/a/x").format == format)
    }

    @Test func aFileThatIsNoImageOrTooLargeIsRefusedNamingItAndTheLimit() {
        #expect {
            try KioskAttractImage(bytes: Array("GIF89a....".utf8), name: "cat.png", file: "/srv/attract/cat.png")
        } throws: { error in
            (error as? KioskBrandError)?.code == .attractNotAnImage
                && (error as? KioskBrandError)?.message.contains("/srv/attract/cat.png is not a PNG, JPEG or SVG image") == true
        }
        #expect {
            try KioskAttractImage(bytes: Self.png + [UInt8](repeating: 0, count: KioskAttractImage.maxBytes), name: "big.png", file: "/srv/attract/big.png")
        } throws: { error in
            (error as? KioskBrandError)?.code == .attractTooLarge
                && (error as? KioskBrandError)?.message.contains("/srv/attract/big.png has more than 2097152 bytes (2 MiB)") == true
        }
        let many = (0...KioskAttractImage.maxCount).compactMap { try? KioskAttractImage(bytes: Self.png, name: "\($0)", file: "\($0)") }
        #expect(throws: KioskBrandError.self) { try KioskAttractImage.checkFolder(many, folder: "/srv/attract") }
    }

    static func brand() throws -> KioskBrandStore {
        KioskBrandStore(KioskBrand(attract: [
            try KioskAttractImage(bytes: svg, name: "1.svg", file: "1.svg"),
            try KioskAttractImage(bytes: jpeg, name: "2.jpg", file: "2.jpg"),
        ]))
    }

    @Test func theWelcomeScreenCarriesTheLoopAndServesItsImagesForAYear() async throws {
        var fixture = try KioskFixture()
        fixture.brand = try Self.brand()
        fixture.settings.attractSeconds = 30
        try await fixture.run { client in
            let page = try await TestBrowser(client).open("/?lang=en")
            #expect(page.contains("<div id=\"attract\" class=\"attract\" data-attract-seconds=\"30\" hidden>"))
            #expect(page.contains("<p class=\"attract-title\">Drinks survey</p><p class=\"attract-touch\">Touch to start</p>"))
            let paths = page.body.matches(of: /src="(\/brand\/attract\.[0-9a-f]+\.(svg|jpg))"/).map { String($0.1) }
            #expect(paths.count == 2)
            for path in paths {
                let image = try await client.execute(uri: path, method: .get)
                #expect(image.status == .ok)
                #expect(image.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(image.headers[.contentType] == (path.hasSuffix(".svg") ? "image/svg+xml" : "image/jpeg"))
                #expect((image.headers[.contentSecurityPolicy] == KioskLogo.svgPolicy) == path.hasSuffix(".svg"))
            }
            let korean = try await TestBrowser(client).open("/?lang=ko")
            #expect(korean.contains("화면을 눌러 시작하세요"))
        }
    }

    @Test func withoutImagesTheWelcomeScreenStaysAsItIsAndClosedHasNoLoop() async throws {
        let plain = try KioskFixture()
        try await plain.run { client in
            let page = try await TestBrowser(client).open("/")
            #expect(!page.contains("id=\"attract\""))
        }
        let staff = KioskStaffPageTests.FakeStaff()
        staff.state.withLock { $0.availability = .closed }
        var closed = try KioskStaffPageTests.fixture(staff)
        closed.brand = try Self.brand()
        try await closed.run { client in
            let page = try await TestBrowser(client).open("/")
            #expect(page.contains("This kiosk is closed"))
            #expect(!page.contains("id=\"attract\""))
            #expect(page.contains("data-state=\"closed|"))
        }
    }
}

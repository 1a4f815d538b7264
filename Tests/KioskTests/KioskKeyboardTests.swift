import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskTesting
import Testing

@testable import Kiosk

/// The on-screen keyboard as the pages serve it: `<html data-keyboard>`, its script and style
/// sheet (embedded, under hashed paths) with `kioskKeyboard` onscreen, none with `system`, and
/// the form itself the same either way (without scripts nothing changes).
@Suite(.timeLimit(.minutes(5))) struct KioskKeyboardTests {
    func questionPage(_ keyboard: KioskKeyboard) async throws -> (page: String, assets: [String: String]) {
        var settings = KioskSettings(titles: [.en: "Drinks survey"], defaultLanguage: .en)
        settings.keyboard = keyboard
        return try await KioskFixture(settings: settings).run { client in
            let browser = TestBrowser(client)
            _ = try await browser.open("/?lang=en")
            let page = try await browser.start(.en)
            var assets: [String: String] = [:]
            for path in Self.keyboardAssets(in: page.body) {
                let response = try await browser.send(path, method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                assets[path] = String(buffer: response.body)
            }
            return (page.body, assets)
        }
    }

    static func keyboardAssets(in body: String) -> [String] {
        body.components(separatedBy: "\"").filter { $0.hasPrefix("/assets/keyboard.") }
    }

    static func form(in page: String) -> String {
        guard let start = page.range(of: "<form id=\"answer-form\""), let end = page.range(of: "</form>", range: start.upperBound..<page.endIndex) else { return "" }
        return String(page[start.lowerBound..<end.upperBound])
    }

    @Test func onscreenServesTheKeyboardsScriptAndStyleSheet() async throws {
        let (page, assets) = try await questionPage(.onscreen)
        #expect(page.contains("<html lang=\"en\" translate=\"no\" data-keyboard=\"onscreen\">"))
        let paths = assets.keys.sorted()
        #expect(paths.count == 2 && paths.allSatisfy { $0.range(of: #"^/assets/keyboard\.[0-9a-f]{12}\.(css|js)$"#, options: .regularExpression) != nil }, "\(paths)")
        let script = try #require(assets.first { $0.key.hasSuffix(".js") }?.value)
        // The composer, the layouts and the wiring, in that order, in one script.
        let parts = ["global.KioskHangul =", "global.KioskKeyboardLayouts =", "this.root.id = \"osk\""].map { script.range(of: $0)?.lowerBound }
        #expect(parts.allSatisfy { $0 != nil } && parts.map { $0! } == parts.map { $0! }.sorted(), "\(parts)")
        #expect(assets.first { $0.key.hasSuffix(".css") }?.value.contains(".osk-key") == true)
        #expect(page.contains("<script src=\"\(paths.first { $0.hasSuffix(".js") } ?? "")\" defer></script>"))
        #expect(!page.contains("id=\"osk\""), "the keyboard is made by its script only")
    }

    @Test func systemServesNoKeyboardAndTheFormIsTheSame() async throws {
        let (system, assets) = try await questionPage(.system)
        #expect(system.contains("<html lang=\"en\" translate=\"no\" data-keyboard=\"system\">"))
        #expect(assets.isEmpty)
        let (onscreen, _) = try await questionPage(.onscreen)
        let form = Self.form(in: system)
        #expect(form.contains("<input id=\"answer\" class=\"text-input\" type=\"text\""))
        let withoutToken = { (form: String) in form.replacingOccurrences(of: #"name="csrf" value="[^"]*""#, with: "", options: .regularExpression) }
        #expect(withoutToken(form) == withoutToken(Self.form(in: onscreen)))
    }

    @Test func theKeyboardIsOnscreenByDefault() {
        #expect(KioskSettings().keyboard == .onscreen)
    }
}

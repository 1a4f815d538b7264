/// The static files of the pages (the style sheets and the scripts), embedded in the binary so that
/// an installed `surveyd` needs no files beside it. Each is served under a path that carries a
/// hash of its bytes, so browsers may keep it for a year: a changed file gets a new path.
struct KioskAssets: Sendable {
    struct Asset: Sendable {
        var path: String
        var contentType: String
        var bytes: [UInt8]
        /// A strong validator for `If-None-Match`.
        var etag: String
        /// A policy of its own instead of the pages' (an SVG logo's).
        var contentSecurityPolicy: String?
    }

    let css: Asset
    let js: Asset
    /// The on-screen keyboard: its style sheet, and one script made of the Hangul composer, the
    /// layouts and the page wiring (three files in the sources, one request for the browser).
    let keyboardCSS: Asset
    let keyboardJS: Asset

    init() {
        let script = "text/javascript; charset=utf-8"
        // The pages' style and that of the screens between respondents (screens.css): one request.
        css = Self.asset(prefix: "/assets/kiosk", extension: "css", contentType: "text/css; charset=utf-8", bytes: PackageResources.kiosk_css + Array("\n".utf8) + PackageResources.screens_css)
        // The page wiring, the attract loop (attract.js) and the paradata counter (paradata.js): one
        // request for the browser.
        let newline = Array("\n".utf8)
        js = Self.asset(
            prefix: "/assets/kiosk", extension: "js", contentType: script,
            bytes: PackageResources.kiosk_js + newline + PackageResources.attract_js + newline + PackageResources.paradata_js)
        keyboardCSS = Self.asset(prefix: "/assets/keyboard", extension: "css", contentType: "text/css; charset=utf-8", bytes: PackageResources.keyboard_css)
        let keyboardParts = [PackageResources.hangul_js, PackageResources.keyboard_layouts_js, PackageResources.keyboard_js]
        keyboardJS = Self.asset(prefix: "/assets/keyboard", extension: "js", contentType: script, bytes: Array(keyboardParts.joined(separator: Array("\n".utf8))))
    }

    /// Every asset, each served at its path.
    var all: [Asset] { [css, js, keyboardCSS, keyboardJS] }

    /// The asset served at `path`, if any.
    func asset(at path: String) -> Asset? {
        all.first { $0.path == path }
    }

    /// `Cache-Control` of the assets: they carry no answers and never change under one path.
    static let cacheControl = "public, max-age=31536000, immutable"

    /// The asset served at `prefix.<hash>.ext`.
    static func asset(prefix: String, extension ext: String, contentType: String, bytes: [UInt8]) -> Asset {
        let hash = fnv1a(bytes)
        let short = String(hash, radix: 16).leftPadded(to: 16).prefix(12)
        return Asset(path: "\(prefix).\(short).\(ext)", contentType: contentType, bytes: bytes, etag: "\"\(short)\"")
    }

    /// FNV-1a, 64 bits: stable across runs (unlike `Hasher`), enough to tell versions apart.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}

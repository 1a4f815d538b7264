/// The static files of the pages (the style sheet and the script), embedded in the binary so that
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

    init() {
        css = Self.asset(prefix: "/assets/kiosk", extension: "css", contentType: "text/css; charset=utf-8", bytes: PackageResources.kiosk_css)
        js = Self.asset(prefix: "/assets/kiosk", extension: "js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.kiosk_js)
    }

    /// The asset served at `path`, if any.
    func asset(at path: String) -> Asset? {
        [css, js].first { $0.path == path }
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

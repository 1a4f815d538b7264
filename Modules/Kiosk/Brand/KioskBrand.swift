import Synchronization

/// What an operator gives the pages from files and settings: a logo on the welcome screen, the
/// accent colour of the buttons and the progress bar, and the consent notice a respondent agrees
/// to before the first question. All are optional; without them the pages keep their own, and
/// ask for no consent.
public struct KioskBrand: Sendable, Hashable {
    public var logo: KioskLogo?
    public var accent: KioskAccentColor?
    /// The images of the welcome screen's attract loop, in order; none: no loop.
    public var attract: [KioskAttractImage]
    /// The consent notice per language; empty: the kiosk asks for no consent.
    public var consent: [KioskLanguage: KioskConsentNotice]

    public init(logo: KioskLogo? = nil, accent: KioskAccentColor? = nil, attract: [KioskAttractImage] = [], consent: [KioskLanguage: KioskConsentNotice] = [:]) {
        self.logo = logo
        self.accent = accent
        self.attract = attract
        self.consent = consent
    }

    /// The style sheet that sets the accent: the page's policy allows no inline style, so the
    /// colour comes as a small sheet of its own after `kiosk.css`.
    var styleSheet: String? {
        accent.map { accent in
            ":root { --accent: \(accent.hex); --accent-soft: \(accent.tint(0.12)); }\n"
        }
    }
}

/// The brand the pages show now, with its files ready to serve. The daemon replaces it when the
/// configuration is read again (SIGHUP); each replacement gets a new ``Current/generation``, which
/// the page caches key on, so no page keeps an old logo or colour.
public final class KioskBrandStore: Sendable {
    /// A brand and its assets, as served.
    struct Current: Sendable {
        var generation: Int
        var brand: KioskBrand
        var logo: KioskAssets.Asset?
        var styleSheet: KioskAssets.Asset?
        var attract: [KioskAssets.Asset] = []

        func asset(at path: String) -> KioskAssets.Asset? {
            ([logo, styleSheet].compactMap { $0 } + attract).first { $0.path == path }
        }
    }

    private let state: Mutex<Current>

    public init(_ brand: KioskBrand = KioskBrand()) {
        state = Mutex(Self.current(brand, generation: 0))
    }

    /// The brand shown now.
    public var brand: KioskBrand { state.withLock { $0.brand } }

    /// Shows `brand` from the next page on; the paths of the previous one are no longer served.
    public func replace(with brand: KioskBrand) {
        state.withLock { $0 = Self.current(brand, generation: $0.generation + 1) }
    }

    var current: Current { state.withLock { $0 } }

    private static func current(_ brand: KioskBrand, generation: Int) -> Current {
        Current(
            generation: generation,
            brand: brand,
            logo: brand.logo.map { logo in
                var asset = KioskAssets.asset(prefix: "/brand/logo", extension: logo.format.rawValue, contentType: logo.format.contentType, bytes: logo.bytes)
                if logo.format == .svg { asset.contentSecurityPolicy = KioskLogo.svgPolicy }
                return asset
            },
            styleSheet: brand.styleSheet.map { sheet in
                KioskAssets.asset(prefix: "/brand/accent", extension: "css", contentType: "text/css; charset=utf-8", bytes: Array(sheet.utf8))
            },
            attract: brand.attract.map { image in
                var asset = KioskAssets.asset(prefix: "/brand/attract", extension: image.format.fileExtension, contentType: image.format.contentType, bytes: image.bytes)
                if image.format == .svg { asset.contentSecurityPolicy = KioskLogo.svgPolicy }
                return asset
            })
    }
}

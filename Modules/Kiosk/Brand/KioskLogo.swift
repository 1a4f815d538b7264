import Foundation

/// The logo on the welcome screen: a PNG or an SVG image of at most 512 KiB, told apart by its
/// content (not its name). It is served from memory under a path holding a hash of its bytes; an
/// SVG is only ever shown through `<img>` (where it runs no script and loads nothing) and is
/// served with a policy of its own that allows nothing else either.
public struct KioskLogo: Sendable, Hashable {
    public enum Format: String, Sendable, Hashable {
        case png, svg

        var contentType: String {
            switch self {
            case .png: "image/png"
            case .svg: "image/svg+xml"
            }
        }
    }

    /// The largest logo accepted: 512 KiB.
    public static let maxBytes = 512 * 1024
    /// The `Content-Security-Policy` of an SVG logo: its inline styles, nothing to load or run.
    static let svgPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

    public let format: Format
    public let bytes: [UInt8]

    /// Checks the bytes of the file at `file` (named in the messages).
    /// - Throws: ``KioskBrandError`` when they are too many, or neither a PNG nor an SVG image.
    public init(bytes: [UInt8], file: String) throws(KioskBrandError) {
        guard bytes.count <= Self.maxBytes else {
            throw KioskBrandError(.logoTooLarge, "the logo \(file) is \(bytes.count) bytes; a logo may have at most \(Self.maxBytes) (512 KiB): make it smaller")
        }
        if bytes.starts(with: Self.pngSignature) {
            format = .png
        } else if Self.isSVG(bytes) {
            format = .svg
        } else {
            throw KioskBrandError(.logoNotAnImage, "the logo \(file) is neither a PNG nor an SVG image (judged by its content, not its name): give a PNG or SVG file")
        }
        self.bytes = bytes
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

    /// UTF-8 text whose first element, after an optional byte-order mark, XML declaration,
    /// comments and doctype, is `<svg`.
    static func isSVG(_ bytes: [UInt8]) -> Bool {
        guard let whole = String(validating: bytes, as: UTF8.self) else { return false }
        var text = Substring(whole)
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        while true {
            text = text.drop { $0.isWhitespace }
            if text.hasPrefix("<svg") {
                let next = text.dropFirst(4).first
                return next.map { $0.isWhitespace || $0 == ">" || $0 == "/" } ?? false
            }
            let skips: [(open: String, close: String)] = [("<?xml", "?>"), ("<!--", "-->"), ("<!DOCTYPE", ">")]
            guard let skip = skips.first(where: { text.hasPrefix($0.open) }), let end = text.range(of: skip.close) else { return false }
            text = text[end.upperBound...]
        }
    }
}

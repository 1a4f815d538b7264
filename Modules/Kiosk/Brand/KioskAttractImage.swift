/// One image of the welcome screen's attract loop: a PNG, JPEG or SVG file, told apart by its
/// content (not its name), of at most ``maxBytes``; all of a folder's together at most
/// ``maxTotalBytes`` and ``maxCount`` files. They are served from memory under paths holding a
/// hash of their bytes, with a cache lifetime of a year; an SVG only ever through `<img>`, with
/// the logo's policy of its own.
public struct KioskAttractImage: Sendable, Hashable {
    public enum Format: String, Sendable, Hashable {
        case png, jpeg, svg

        var contentType: String {
            switch self {
            case .png: "image/png"
            case .jpeg: "image/jpeg"
            case .svg: "image/svg+xml"
            }
        }

        var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
    }

    /// The largest image accepted: 2 MiB.
    public static let maxBytes = 2 * 1024 * 1024
    /// The most all images of the folder may have together: 16 MiB (the daemon keeps them in memory).
    public static let maxTotalBytes = 16 * 1024 * 1024
    /// The most images of one folder.
    public static let maxCount = 32

    public let name: String
    public let format: Format
    public let bytes: [UInt8]

    /// Checks the bytes of the file `name` (shown in the messages, with its folder).
    /// - Throws: ``KioskBrandError`` when they are too many, or not a PNG, JPEG or SVG image.
    public init(bytes: [UInt8], name: String, file: String) throws(KioskBrandError) {
        guard bytes.count <= Self.maxBytes else {
            throw KioskBrandError(.attractTooLarge, "the attract image \(file) has more than \(Self.maxBytes) bytes (2 MiB), the most one image may have: make it smaller or take it out of the folder")
        }
        if bytes.starts(with: KioskLogo.pngSignature) {
            format = .png
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            format = .jpeg
        } else if KioskLogo.isSVG(bytes) {
            format = .svg
        } else {
            throw KioskBrandError(.attractNotAnImage, "the attract image \(file) is not a PNG, JPEG or SVG image (judged by its content, not its name): convert it, or take it out of the folder")
        }
        self.name = name
        self.bytes = bytes
    }

    /// Checks what a folder holds together: its count and total size.
    /// - Throws: ``KioskBrandError`` naming the folder, the limit and the files' sum.
    public static func checkFolder(_ images: [KioskAttractImage], folder: String) throws(KioskBrandError) {
        guard images.count <= maxCount else {
            throw KioskBrandError(.attractTooLarge, "the attract folder \(folder) holds \(images.count) images; it may hold at most \(maxCount): take some out")
        }
        let total = images.reduce(0) { $0 + $1.bytes.count }
        guard total <= maxTotalBytes else {
            throw KioskBrandError(.attractTooLarge, "the attract images in \(folder) have \(total) bytes together; they may have at most \(maxTotalBytes) (16 MiB): make them smaller or fewer")
        }
    }
}

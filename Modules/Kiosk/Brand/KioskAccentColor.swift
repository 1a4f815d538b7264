#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The colour of the kiosk's buttons and progress bar, behind white text: `#rrggbb`, accepted only
/// when white on it (and it on white) reaches the contrast WCAG AA asks of text, 4.5:1.
public struct KioskAccentColor: Sendable, Hashable {
    /// The contrast text needs against its background (WCAG 2 AA, normal text).
    public static let minimumContrast = 4.5

    public let red: UInt8
    public let green: UInt8
    public let blue: UInt8

    /// Reads `#rrggbb` (either case) and checks its contrast with white.
    /// - Throws: ``KioskBrandError`` saying what is wrong: not `#rrggbb`, or the ratio it has.
    public init(_ text: String) throws(KioskBrandError) {
        let digits = Array(text.utf8.dropFirst())
        let isHex = digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) }
        guard text.utf8.first == UInt8(ascii: "#"), digits.count == 6, isHex, let value = UInt32(String(decoding: digits, as: UTF8.self), radix: 16) else {
            throw KioskBrandError(.badColor, "\"\(text.prefix(40))\" is not a colour written #rrggbb (e.g. #0a4a94)")
        }
        red = UInt8(value >> 16 & 0xff)
        green = UInt8(value >> 8 & 0xff)
        blue = UInt8(value & 0xff)
        let ratio = contrastWithWhite
        guard ratio >= Self.minimumContrast else {
            throw KioskBrandError(
                .lowContrast,
                "\(hex) has a contrast of \(Self.ratioText(ratio)):1 with white; white text on it and it on white need at least 4.5:1 (WCAG AA): choose a darker colour")
        }
    }

    /// `#rrggbb` in lowercase.
    public var hex: String {
        "#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The WCAG 2 relative luminance, 0 (black) to 1 (white).
    public var luminance: Double {
        func linear(_ channel: UInt8) -> Double {
            let c = Double(channel) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// The WCAG contrast ratio between this colour and white, 1 to 21; the same whichever is the text.
    public var contrastWithWhite: Double { 1.05 / (luminance + 0.05) }

    /// This colour mixed with white, `amount` of it (0...1), for light backgrounds (a chosen option).
    func tint(_ amount: Double) -> String {
        func mix(_ channel: UInt8) -> UInt8 { UInt8((Double(channel) * amount + 255 * (1 - amount)).rounded()) }
        return "#" + [mix(red), mix(green), mix(blue)].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// A ratio as the messages write it: rounded down to two decimals, so 4.499 is never shown as 4.5.
    static func ratioText(_ ratio: Double) -> String {
        let hundredths = Int((ratio * 100).rounded(.down))
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

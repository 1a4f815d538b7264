#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension UUID {
    /// The 36-character text of the UUID (`8-4-4-4-12` hex digits), as `uuidString` gives it
    /// (uppercase) or in lowercase, as the control API shows ids. Written directly: Foundation's
    /// `uuidString` formats with `sprintf`, which showed in the daemon's profile per answer.
    public func text(uppercase: Bool) -> String {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { out in
                var position = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = digits.utf8Start[Int(byte >> 4)]
                    out[position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }
}

extension UUID {
    /// Reads the 36-character text of a UUID, all of it: `8-4-4-4-12` hex digits with the dashes
    /// at their places and nothing before, between or after (no braces, `urn:uuid:`, whitespace,
    /// NUL or any other byte). Hex digits may be lowercase, as the control API shows ids, or
    /// uppercase, as Foundation's `uuidString` and the journals write them (RFC 9562: case-insensitive
    /// on input). Nil for anything else.
    ///
    /// Foundation's `UUID(uuidString:)` reads its argument as a C string, so a valid id followed
    /// by a NUL and anything else was read as that id; ids from clients go through this instead.
    public init?(canonicalText text: some StringProtocol) {
        var text = String(text)
        guard let uuid = text.withUTF8(Self.parse) else { return nil }
        self.init(uuid: uuid)
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> uuid_t? {
        guard bytes.count == 36 else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let complete = withUnsafeMutableBytes(of: &uuid) { out in
            var index = 0
            for position in 0 ..< 16 {
                // Dashes come before bytes 4, 6, 8 and 10, at characters 8, 13, 18 and 23.
                if position == 4 || position == 6 || position == 8 || position == 10 {
                    guard bytes[index] == UInt8(ascii: "-") else { return false }
                    index += 1
                }
                guard let high = hexValue(bytes[index]), let low = hexValue(bytes[index + 1]) else { return false }
                out[position] = high << 4 | low
                index += 2
            }
            return true
        }
        return complete ? uuid : nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

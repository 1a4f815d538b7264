import Foundation

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

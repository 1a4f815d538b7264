// The digest that names a version of a file's content (the kiosk's consent notice).

import Crypto

/// The SHA-256 of some bytes, as lower-case hex.
public enum ContentDigest {
    /// The first `digits` hex digits (at most 64) of the SHA-256 of `bytes`.
    public static func sha256Hex(_ bytes: [UInt8], digits: Int = 64) -> String {
        let hex = SHA256.hash(data: bytes).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
        return String(hex.prefix(max(0, min(64, digits))))
    }
}

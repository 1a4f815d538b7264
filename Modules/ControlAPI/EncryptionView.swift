/// Whether respondents' answers are encrypted at rest, under which key, and how far a migration
/// or a key rotation has got (`status`, `health`; doc/security.md).
public struct EncryptionView: Sendable, Hashable, Codable {
    /// `on` or `off`.
    public var state: String
    /// The first 8 hex digits of an HKDF of the key: tells keys apart, reveals nothing of the
    /// key. Absent when encryption is off.
    public var fingerprint: String?
    /// Journal segments still under an earlier key (`encryptionOldKeyFiles`); once 0, the
    /// earlier keys can go.
    public var oldKeySegments: Int
    /// Journal segments written in the clear before encryption was turned on; compaction
    /// rewrites them.
    public var plainSegments: Int

    public init(state: String, fingerprint: String?, oldKeySegments: Int, plainSegments: Int) {
        self.state = state
        self.fingerprint = fingerprint
        self.oldKeySegments = oldKeySegments
        self.plainSegments = plainSegments
    }

    public static let on = "on"
    public static let off = "off"

    /// `encryption: on (key 1a2b3c4d)` and what is left of a migration or rotation.
    public var lines: [String] {
        guard state == Self.on else { return ["encryption: off (answers are stored in the clear; see doc/security.md)"] }
        var lines = ["encryption: on (key \(fingerprint ?? "?"))"]
        if oldKeySegments > 0 { lines.append("  \(oldKeySegments) segment\(oldKeySegments == 1 ? "" : "s") still under an earlier key: keep encryptionOldKeyFiles until compaction has rewritten them") }
        if plainSegments > 0 { lines.append("  \(plainSegments) segment\(plainSegments == 1 ? "" : "s") still in the clear, from before encryption: compaction rewrites them") }
        return lines
    }
}

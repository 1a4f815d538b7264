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
    /// Segments in the clear set aside unread because no authenticated list of the journal named
    /// them (`sessions/segment-….log.unlisted`), as found at start: something else wrote to the
    /// state directory (doc/security.md). An older daemon leaves it out.
    public var setAsideSegments: [String]

    public init(state: String, fingerprint: String?, oldKeySegments: Int, plainSegments: Int, setAsideSegments: [String] = []) {
        self.state = state
        self.fingerprint = fingerprint
        self.oldKeySegments = oldKeySegments
        self.plainSegments = plainSegments
        self.setAsideSegments = setAsideSegments
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        state = try c.decode(String.self, forKey: .state)
        fingerprint = try c.decodeIfPresent(String.self, forKey: .fingerprint)
        oldKeySegments = try c.decode(Int.self, forKey: .oldKeySegments)
        plainSegments = try c.decode(Int.self, forKey: .plainSegments)
        setAsideSegments = try c.decodeIfPresent([String].self, forKey: .setAsideSegments) ?? []
    }

    public static let on = "on"
    public static let off = "off"

    /// `encryption: on (key 1a2b3c4d)` and what is left of a migration or rotation.
    public var lines: [String] {
        guard state == Self.on else { return ["encryption: off (answers are stored in the clear; see doc/security.md)"] }
        var lines = ["encryption: on (key \(fingerprint ?? "?"))"]
        if oldKeySegments > 0 { lines.append("  \(oldKeySegments) segment\(oldKeySegments == 1 ? "" : "s") still under an earlier key: keep encryptionOldKeyFiles until compaction has rewritten them") }
        if plainSegments > 0 { lines.append("  \(plainSegments) segment\(plainSegments == 1 ? "" : "s") still in the clear, from before encryption: compaction rewrites them") }
        if !setAsideSegments.isEmpty {
            lines.append("  \(setAsideSegments.count) segment\(setAsideSegments.count == 1 ? "" : "s") in the clear set aside unread, not listed by the journal (something else wrote to the state directory): \(setAsideSegments.joined(separator: ", ")); inspect, then delete (doc/security.md)")
        }
        return lines
    }
}

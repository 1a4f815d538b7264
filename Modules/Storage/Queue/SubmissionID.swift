// The identifier of a queued submission, from the queue through delivery to the dead-letter view.

/// Which submission of the queue: its ordinal, the position it was queued at (FIFO order, never
/// reused). Its text, on the control API and in logs, is the ordinal in canonical decimal.
public struct SubmissionID: Hashable, Comparable, Sendable, LosslessStringConvertible {
    /// The position in the queue; ids compare by it, oldest first.
    public let ordinal: UInt64

    public init(_ ordinal: UInt64) {
        self.ordinal = ordinal
    }

    /// Reads an id strictly: the whole text is the canonical decimal form of a 64-bit number
    /// (ASCII digits only, no sign, no leading zero, no spaces); nil otherwise, so that `+5`,
    /// `05` or `5 ` never name submission 5.
    public init?(_ text: String) {
        let digits = text.utf8
        guard let first = digits.first, digits.count <= 20,
              digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              first != UInt8(ascii: "0") || digits.count == 1,
              let ordinal = UInt64(text) else { return nil }
        self.ordinal = ordinal
    }

    /// The canonical decimal text, which `init?(_:)` reads back.
    public var description: String { String(ordinal) }

    public static func < (lhs: SubmissionID, rhs: SubmissionID) -> Bool { lhs.ordinal < rhs.ordinal }
}

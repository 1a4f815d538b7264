/// Trimming spaces and tabs without Foundation's `CharacterSet`, whose `trimmingCharacters(in:)`
/// goes through `NSString` and showed in profiles of every answer.
extension StringProtocol {
    /// The text without the spaces and tabs at either end: the same characters as
    /// `trimmingCharacters(in: .whitespaces)` removes (Unicode's space separators, U+0009 and
    /// U+200B).
    public func trimmingSpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isSpaceOrTab }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.isSpaceOrTab })!
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return String(self) }
        var trimmed = String.UnicodeScalarView()
        trimmed.append(contentsOf: scalars[first...last])
        return String(trimmed)
    }

    /// Whether the text has nothing but spaces and tabs (or nothing at all).
    public var isBlank: Bool { unicodeScalars.allSatisfy(\.isSpaceOrTab) }
}

extension Unicode.Scalar {
    /// A space separator (general category Zs), a tab or a zero-width space: what Foundation's
    /// `.whitespaces` holds on Linux.
    var isSpaceOrTab: Bool {
        if value < 0x80 { return value == 0x20 || value == 0x09 }
        return value == 0x200B || properties.generalCategory == .spaceSeparator
    }
}

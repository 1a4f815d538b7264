/// Writes JSON text byte for byte as Foundation's `JSONEncoder` does, for the few types the
/// daemon encodes on every request (answer replies, journaled session events), where the
/// encoder's dynamic `Codable` machinery cost about a seventh of the daemon's CPU.
///
/// It writes what the caller says, in the order the caller says it: a type that writes itself
/// must name its keys in the order `JSONEncoder` would (sorted with `.sortedKeys`, declaration
/// order without) and omit the `nil` optionals that synthesized `Codable` omits. Tests compare
/// each such type's output with `JSONEncoder`'s.
public struct JSONOutput: Sendable {
    /// The text written so far, UTF-8.
    public private(set) var bytes: [UInt8] = []
    /// True to write `/` as `\/`, as `JSONEncoder` does without `.withoutEscapingSlashes`.
    public let escapesSlashes: Bool
    /// Whether the next value in the current object or array needs a comma before it.
    private var needsComma = false

    public init(escapesSlashes: Bool, capacity: Int = 512) {
        self.escapesSlashes = escapesSlashes
        bytes.reserveCapacity(capacity)
    }

    // MARK: Structure

    /// Writes `{`, then `body` (its members), then `}`.
    public mutating func object(_ body: (inout JSONOutput) -> Void) {
        container(UInt8(ascii: "{"), UInt8(ascii: "}"), body)
    }

    /// Writes `[`, then `body` (its elements), then `]`.
    public mutating func array(_ body: (inout JSONOutput) -> Void) {
        container(UInt8(ascii: "["), UInt8(ascii: "]"), body)
    }

    private mutating func container(_ open: UInt8, _ close: UInt8, _ body: (inout JSONOutput) -> Void) {
        separate()
        bytes.append(open)
        needsComma = false
        body(&self)
        bytes.append(close)
        needsComma = true
    }

    /// Writes a member's key and colon; the value written next is its value.
    public mutating func key(_ name: String) {
        separate()
        quoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        separate()
        quoted(value)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    public mutating func integer(_ value: Int) {
        raw(String(value))
    }

    /// A finite number as `JSONEncoder` writes it: Swift's shortest round-trip form, without
    /// a trailing `.0` (`30`, `0.1`, `1e+16`). The caller keeps non-finite values out, which
    /// `JSONEncoder` refuses too.
    public mutating func number(_ value: Double) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        raw(text)
    }

    public mutating func strings(_ values: [String]) {
        array { out in
            for value in values { out.string(value) }
        }
    }

    /// Writes the member only when `value` is not nil, as synthesized `Codable` does.
    public mutating func member(_ name: String, ifPresent value: String?) {
        guard let value else { return }
        member(name, value)
    }

    /// Writes a member: its key, then its value.
    public mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    public mutating func member(_ name: String, _ value: Int) {
        key(name)
        integer(value)
    }

    public mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    public mutating func member(_ name: String, _ values: [String]) {
        key(name)
        strings(values)
    }

    // MARK: Writing

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func raw(_ text: String) {
        separate()
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A string in quotes, escaped as `JSONEncoder` escapes it: `"` and `\`, the short forms
    /// `\b \t \n \f \r`, other control characters as `\u00xx`, `/` when asked; everything else
    /// as its UTF-8 bytes. Runs of bytes that need no escape are copied in one piece.
    private mutating func quoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        let copied: Void? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            var runStart = 0
            for index in utf8.indices where needsEscape(utf8[index]) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart ..< index]))
                escape(utf8[index])
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        if copied == nil {
            for byte in value.utf8 {
                if needsEscape(byte) { escape(byte) } else { bytes.append(byte) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (byte == UInt8(ascii: "/") && escapesSlashes)
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x00 ..< 0x20:
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]])
        default: bytes.append(byte)  // `"`, `\\`, `/`
        }
    }
}

/// A type that writes its own JSON with ``JSONOutput``, the same bytes as its `Encodable`
/// conformance gives through `JSONEncoder` (with `.sortedKeys` and `.withoutEscapingSlashes`
/// for control API bodies).
public protocol JSONOutputWritable {
    func write(to out: inout JSONOutput)
}

extension AnswerValue: JSONOutputWritable {
    public func write(to out: inout JSONOutput) {
        switch self {
        case .string(let value): out.string(value)
        case .number(let value): out.number(value)
        case .integer(let value): out.integer(value)
        case .list(let values): out.strings(values)
        }
    }
}

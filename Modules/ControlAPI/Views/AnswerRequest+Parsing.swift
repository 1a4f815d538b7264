extension AnswerRequest {
    /// Reads the common shape of an answer body without `JSONDecoder`, which cost more CPU than
    /// the rest of the request's JSON: one object with at most the members `session` and
    /// `question` (a string or null), `values` (an array of strings), `skip` (a boolean) and
    /// `position` (a whole number of at most 9 digits, or null), each once, whitespace allowed,
    /// strings without escapes.
    ///
    /// Returns nil for anything else, valid or not (escapes, other numbers, unknown or repeated
    /// members, invalid UTF-8, trailing bytes): the caller then decodes with `JSONDecoder`, which
    /// gives the same value or names the error. What it returns is what `JSONDecoder` would
    /// decode from the same bytes.
    public init?(simpleJSON bytes: some Collection<UInt8>) {
        let parsed = bytes.withContiguousStorageIfAvailable { storage in
            var parser = SimpleAnswerParser(bytes: UnsafeRawBufferPointer(storage))
            return parser.parse()
        }
        guard let parsed, let parsed else { return nil }
        self = parsed
    }
}

/// The parser behind ``AnswerRequest/init(simpleJSON:)``.
private struct SimpleAnswerParser {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func parse() -> AnswerRequest? {
        var session: String??
        var values: [String]?
        var skip: Bool?
        var question: String??
        var position: Int??
        skipWhitespace()
        guard take(UInt8(ascii: "{")) else { return nil }
        skipWhitespace()
        if !take(UInt8(ascii: "}")) {
            repeat {
                skipWhitespace()
                guard let name = string() else { return nil }
                skipWhitespace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                switch name {
                case "session" where session == nil:
                    if literal("null") {
                        session = .some(nil)
                    } else {
                        guard let text = string() else { return nil }
                        session = .some(text)
                    }
                case "question" where question == nil:
                    if literal("null") {
                        question = .some(nil)
                    } else {
                        guard let text = string() else { return nil }
                        question = .some(text)
                    }
                case "position" where position == nil:
                    if literal("null") {
                        position = .some(nil)
                    } else {
                        guard let number = wholeNumber() else { return nil }
                        position = .some(number)
                    }
                case "values" where values == nil:
                    guard let list = strings() else { return nil }
                    values = list
                case "skip" where skip == nil:
                    if literal("true") {
                        skip = true
                    } else if literal("false") {
                        skip = false
                    } else {
                        return nil
                    }
                default:
                    return nil
                }
                skipWhitespace()
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")) else { return nil }
        }
        skipWhitespace()
        guard index == bytes.count else { return nil }
        return AnswerRequest(session: session ?? nil, values: values ?? [], skip: skip ?? false, question: question ?? nil, position: position ?? nil)
    }

    /// `0` or a number of 1 to 9 digits without a leading zero, followed by a byte that cannot
    /// continue a JSON number (a sign, fraction or exponent leaves it to the decoder).
    mutating func wholeNumber() -> Int? {
        let start = index
        var value = 0
        while index < bytes.count, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(bytes[index]) {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
            if index - start > 9 { return nil }
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) { return nil }
        return value
    }

    mutating func strings() -> [String]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var list: [String] = []
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return list }
        repeat {
            skipWhitespace()
            guard let text = string() else { return nil }
            list.append(text)
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? list : nil
    }

    /// A string without escapes or control characters, valid UTF-8.
    mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[start ..< index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0 ..< count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }
}

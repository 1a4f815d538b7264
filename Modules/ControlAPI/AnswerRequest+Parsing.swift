extension AnswerRequest {
    /// Reads the common shape of an answer body without `JSONDecoder`, which cost more CPU than
    /// the rest of the request's JSON: one object with at most the members `session` (a string
    /// or null), `values` (an array of strings) and `skip` (a boolean), each once, whitespace
    /// allowed, strings without escapes.
    ///
    /// Returns nil for anything else, valid or not (escapes, numbers, unknown or repeated
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
        return AnswerRequest(session: session ?? nil, values: values ?? [], skip: skip ?? false)
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

/// A form body (`application/x-www-form-urlencoded`), read strictly: every pair has a name and
/// an `=`, percent escapes are complete and decode to UTF-8, and only the fields a route
/// expects may appear, each once unless the route allows several.
struct FormBody: Sendable {
    private(set) var fields: [(name: String, value: String)] = []

    /// At most this many fields; a browser's kiosk form has a handful.
    static let maxFields = 128

    /// Parses `bytes`.
    /// - Parameter allowed: the field names the route reads; `repeatable` may appear several times.
    static func parse(_ bytes: some Collection<UInt8>, allowed: Set<String>, repeatable: Set<String> = []) throws(FormBodyError) -> FormBody {
        var body = FormBody()
        guard !bytes.isEmpty else { return body }
        var seen: Set<String> = []
        for (index, pair) in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            guard number <= maxFields else {
                throw FormBodyError("the form has more than \(maxFields) fields")
            }
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else {
                throw FormBodyError("field \(number) has no \"=\" (each field is name=value)")
            }
            let name = try decode(pair[pair.startIndex..<equals], what: "the name of field \(number)")
            guard !name.isEmpty else { throw FormBodyError("field \(number) has no name") }
            guard allowed.contains(name) else {
                throw FormBodyError("field \"\(name)\" is not expected here (expected: \(allowed.sorted().joined(separator: ", ")))")
            }
            guard seen.insert(name).inserted || repeatable.contains(name) else {
                throw FormBodyError("field \"\(name)\" appears more than once")
            }
            let value = try decode(pair[pair.index(after: equals)...], what: "field \"\(name)\"")
            body.fields.append((name, value))
        }
        return body
    }

    /// Whether a `Content-Type` names `application/x-www-form-urlencoded`, in any case, with any
    /// parameters after a `;` and spaces or tabs around it (HTTP's optional white space).
    static func isFormMediaType(_ contentType: String) -> Bool {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var media = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }.drop(while: isSpace)
        while let last = media.last, isSpace(last) { media = media.dropLast() }
        return media.count == formMediaType.count
            && zip(media, formMediaType).allSatisfy { byte, expected in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 0x20 == expected : byte == expected
            }
    }

    private static let formMediaType = Array("application/x-www-form-urlencoded".utf8)

    /// The value of `name`, when given.
    func value(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order.
    func values(_ name: String) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// The value of `name`, which must be given and not empty.
    func require(_ name: String) throws(FormBodyError) -> String {
        guard let value = value(name), !value.isEmpty else { throw FormBodyError("field \"\(name)\" is missing") }
        return value
    }

    /// The value of `name` as a whole number from 1.
    func requirePosition(_ name: String) throws(FormBodyError) -> Int {
        let text = try require(name)
        guard text.utf8.count <= 9, let number = Int(text), number >= 1 else {
            throw FormBodyError("field \"\(name)\" must be a whole number from 1, not \"\(text.prefix(20))\"")
        }
        return number
    }

    /// The question a page's form was shown for: its `question` and `position` fields, which an
    /// answer and a Back both carry.
    func shownQuestion() throws(FormBodyError) -> (name: String, position: Int) {
        (try require("question"), try requirePosition("position"))
    }

    /// `+` is a space, `%XX` a byte; the bytes must be UTF-8.
    private static func decode(_ bytes: some Collection<UInt8>, what: String) throws(FormBodyError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                out.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw FormBodyError("\(what) has an incomplete percent escape (% needs two hex digits)")
                }
                out.append(high << 4 | low)
            default:
                out.append(byte)
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw FormBodyError("\(what) is not UTF-8 text")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A form body that cannot be read: answered with 400 and this message.
struct FormBodyError: Error, Sendable, Hashable, CustomStringConvertible {
    static let code = "bad_form"
    var message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { "The form could not be read: \(message)." }
}

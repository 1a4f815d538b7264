import Entities
import Foundation
import Testing

/// `JSONOutput` must write what `JSONEncoder` writes, byte for byte.
@Suite(.timeLimit(.minutes(5))) struct JSONOutputTests {
    /// Every control character, the characters JSON escapes, a slash, DEL, and text beyond ASCII.
    static let awkwardText: String = {
        var text = ""
        for byte in UInt8(0) ..< 0x20 { text.unicodeScalars.append(Unicode.Scalar(byte)) }
        return text + "\"\\/ \u{7F} é 한글 😀 \u{2028} end"
    }()

    static func encoder(sortedKeys: Bool, escapingSlashes: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = sortedKeys ? [.sortedKeys] : []
        if !escapingSlashes { encoder.outputFormatting.insert(.withoutEscapingSlashes) }
        return encoder
    }

    @Test(arguments: [true, false])
    func stringsAreEscapedAsTheEncoderEscapesThem(escapingSlashes: Bool) throws {
        let edges = ["\"starts", "ends\"", "\n", "/", "//", "a\u{1F}b", "long text without any escape at all, past the small-string size", "한/😀"]
        for text in [Self.awkwardText, "", "plain", "a/b", "\u{0}", "ends with \\"] + edges {
            var out = JSONOutput(escapesSlashes: escapingSlashes)
            out.strings([text, text])
            let expected = try Self.encoder(sortedKeys: true, escapingSlashes: escapingSlashes).encode([text, text])
            #expect(out.bytes == Array(expected), "text \(text.debugDescription)")
        }
    }

    @Test func uuidTextIsFoundationsText() {
        for _ in 0 ..< 200 {
            let id = UUID()
            #expect(id.text(uppercase: true) == id.uuidString)
            #expect(id.text(uppercase: false) == id.uuidString.lowercased())
        }
        let fixed = UUID(uuidString: "00000000-0000-0000-0000-00000000000F")!
        #expect(fixed.text(uppercase: false) == "00000000-0000-0000-0000-00000000000f")
    }

    @Test func numbersAreWrittenAsTheEncoderWritesThem() throws {
        let doubles: [Double] = [0, -0.0, 30, -7, 0.1, 172.5, 1e-7, 1e16, 1.5e300, 5e-324, 785_000_000.123456, Double(Int.max), .pi, -2.5e-10]
        for value in doubles {
            var out = JSONOutput(escapesSlashes: false)
            out.number(value)
            let expected = try JSONEncoder().encode([value])
            #expect("[" + String(decoding: out.bytes, as: UTF8.self) + "]" == String(decoding: expected, as: UTF8.self), "value \(value)")
        }
        for value in [0, 1, -1, 42, Int.max, Int.min] {
            var out = JSONOutput(escapesSlashes: false)
            out.integer(value)
            #expect(out.bytes == Array(try JSONEncoder().encode(value)))
        }
    }

    @Test func answerValuesMatchTheirCodableForm() throws {
        let values: [AnswerValue] = [.string(Self.awkwardText), .number(30), .number(172.5), .integer(5), .list([]), .list(["home", "a/b"])]
        var out = JSONOutput(escapesSlashes: true)
        out.array { out in
            for value in values { value.write(to: &out) }
        }
        #expect(out.bytes == Array(try JSONEncoder().encode(values)))
    }

    @Test func objectsAndArraysNestWithCommasWhereTheyBelong() {
        var out = JSONOutput(escapesSlashes: false)
        out.object { out in
            out.key("a")
            out.array { out in
                out.object { _ in }
                out.array { _ in }
                out.bool(true)
            }
            out.member("skipped", ifPresent: nil)
            out.member("b", ifPresent: "x")
            out.key("c")
            out.object { out in
                out.key("d")
                out.bool(false)
            }
        }
        #expect(String(decoding: out.bytes, as: UTF8.self) == #"{"a":[{},[],true],"b":"x","c":{"d":false}}"#)
    }
}

import Entities
import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct StringSpacesTests {
    static let samples = [
        "", " ", "\t", "  a  ", "\ta b\t", "a", " a", "a ", "\n", " \n ", "a\n", "\u{00A0}x\u{3000}", "\u{3000}", "\u{2003}\u{2009}y z\u{202F}",
        "\u{200B}", "\u{200B}a\u{200B}", "\r\n x \r\n", "한국어 ", " e\u{301} ", "\u{1680}ᚁ\u{1680}", "\u{FEFF}a",
    ]

    @Test(arguments: samples)
    func trimsWhatFoundationTrims(_ text: String) {
        #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
        #expect(text[...].trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
        #expect(text.isBlank == text.trimmingCharacters(in: .whitespaces).isEmpty)
    }

    @Test func keepsInnerSpacesAndNewlines() {
        #expect(" a  b ".trimmingSpaces() == "a  b")
        #expect("\na\n".trimmingSpaces() == "\na\n")
        #expect(!"\n".isBlank)
        #expect(" \t\u{3000}".isBlank)
    }
}

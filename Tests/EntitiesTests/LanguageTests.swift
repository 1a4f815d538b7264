import Entities
import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct LanguageTests {
    @Test func parsesTheLanguagesTheContractKnows() throws {
        #expect(try Language(parsing: "ko") == .ko)
        #expect(try Language(parsing: "en") == .en)
        #expect(Language.choices == "ko or en")
    }

    @Test func anUnknownLanguageNamesItselfAndTheAllowedOnes() {
        #expect(throws: UnknownLanguage(text: "fr")) { try Language(parsing: "fr") }
        #expect(UnknownLanguage(text: "KO").message == #""KO" is not ko or en"#)
    }

    /// The wire keeps the language as its plain code.
    @Test func encodesAsItsCode() throws {
        #expect(String(decoding: try JSONEncoder().encode([Language.en]), as: UTF8.self) == #"["en"]"#)
        #expect(try JSONDecoder().decode([Language].self, from: Data(#"["ko"]"#.utf8)) == [.ko])
    }
}

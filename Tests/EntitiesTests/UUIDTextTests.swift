import Entities
import Foundation
import Testing

/// `UUID(canonicalText:)` reads exactly the 36-character form, in either case, and nothing else.
@Suite(.timeLimit(.minutes(5))) struct UUIDTextTests {
    static let id = "3f0c8a2e-5b1d-4c7e-9a60-0123456789ab"

    @Test func readsTheCanonicalTextInEitherCase() throws {
        let expected = try #require(UUID(uuidString: Self.id))
        #expect(UUID(canonicalText: Self.id) == expected)
        #expect(UUID(canonicalText: Self.id.uppercased()) == expected)
        #expect(UUID(canonicalText: "3F0C8A2E-5b1d-4C7E-9a60-0123456789AB") == expected, "mixed case")
        #expect(UUID(canonicalText: Substring("x" + Self.id).dropFirst()) == expected, "a substring")
        #expect(UUID(canonicalText: "00000000-0000-0000-0000-000000000000") == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(UUID(canonicalText: "ffffffff-ffff-ffff-ffff-ffffffffffff")?.text(uppercase: true) == "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")
        for _ in 0 ..< 500 {
            let random = UUID()
            #expect(UUID(canonicalText: random.text(uppercase: false)) == random)
            #expect(UUID(canonicalText: random.uuidString) == random)
        }
    }

    @Test(arguments: [
        // Anything after the id, NUL first of all (a C string parser stops there).
        id + "\u{0}", id + "\u{0}junk", id + "\u{0}" + id, id + "x", id + "0", id + "-", id + " ", id + "\n", id + "\r\n", id + "\t",
        // Anything before it.
        "\u{0}" + id, " " + id, "\n" + id, "{" + id + "}", "{" + id, id + "}", "(" + id + ")", "urn:uuid:" + id, "\"" + id + "\"", "\u{FEFF}" + id,
        // Wrong lengths.
        "", "-", "\u{0}", String(id.dropLast()), String(id.dropFirst()), String(id.dropLast(2)), id + id,
        "3f0c8a2e-5b1d-4c7e-9a60-0123456789a", "3f0c8a2e-5b1d-4c7e-9a60-0123456789abc",
        // Dashes missing, extra or moved.
        id.replacingOccurrences(of: "-", with: ""), "3f0c8a2e5b1d-4c7e-9a60-0123456789ab", "3f0c8a2e-5b1d4c7e-9a60-0123456789ab",
        "3f0c8a2e-5b1d-4c7e9a60-0123456789ab", "3f0c8a2e-5b1d-4c7e-9a600123456789ab", "3f0c8a2e-5b1d-4c7e-9a60-01234567-89ab",
        "3f0c8a2-e5b1d-4c7e-9a60-0123456789ab", "3f0c8a2e5-b1d-4c7e-9a60-0123456789ab", "3f0c8a2e--5b1d-4c7e-9a60-0123456789a",
        "3f0c8a2e_5b1d_4c7e_9a60_0123456789ab", "3f0c8a2e 5b1d 4c7e 9a60 0123456789ab", "------------------------------------",
        // Not hex.
        "3f0c8a2g-5b1d-4c7e-9a60-0123456789ab", "3f0c8a2e-5b1d-4c7e-9a60-0123456789aZ", "3f0c8a2e-5b1d-4c7e-9a60-0123456789a ",
        "+f0c8a2e-5b1d-4c7e-9a60-0123456789ab", "3f0c8a2e-+b1d-4c7e-9a60-0123456789ab", "0x0c8a2e-5b1d-4c7e-9a60-0123456789ab",
        "3f0c8a2e-5b1d-4c7e-9a60-0123456789a\u{0}", "3f0c8a2e-5b1d-4c7e-9a60-０123456789ab", "3f0c8a2e-5b1d-4c7e-9a60-0123456789aé",
        "3f0c8a2e-5b1d-4c7e-9a60-01234567😀", "3f0c8a2e-5b1d-4c7e-9a60-0123456789:;", "3f0c8a2e-5b1d-4c7e-9a60-0123456789@G",
    ])
    func refusesEverythingElse(text: String) {
        #expect(UUID(canonicalText: text) == nil, "\(text.debugDescription)")
    }
}

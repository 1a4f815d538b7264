import Entities
@testable import Kiosk
import Testing

/// The page's paradata field `pd`: read when it is four whole numbers, ignored otherwise, never
/// a reason to refuse the answer it came with.
@Suite(.timeLimit(.minutes(5))) struct FormBodyPageInputTests {
    static let allowed: Set<String> = ["value", "pd"]

    func input(_ pd: String?) throws -> PageInput? {
        let body = "value=3" + (pd.map { "&pd=" + $0 } ?? "")
        return try FormBody.parse(Array(body.utf8), allowed: Self.allowed).pageInput
    }

    @Test func fourWholeNumbersAreTheCounts() throws {
        #expect(try input("3.12.2150.1") == PageInput(taps: 3, keys: 12, spanMilliseconds: 2150, stillThereShown: 1))
        #expect(try input("0.0.0.0") == PageInput(taps: 0, keys: 0, spanMilliseconds: 0, stillThereShown: 0))
        // Past the limit: clamped, not refused.
        #expect(try input("99999999999.0.0.0")?.taps == PageInput.limit)
    }

    @Test func anythingElseIsIgnored() throws {
        for bad in [nil, "", "1.2.3", "1.2.3.4.5", "-1.2.3.4", "a.b.c.d", "1..3.4", "1.2.3.4%20", String(repeating: "1", count: 70)] {
            #expect(try input(bad) == nil, "\(bad ?? "nil")")
        }
    }
}

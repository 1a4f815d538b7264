import KioskTesting
import Testing

@testable import Kiosk

@Suite(.timeLimit(.minutes(5))) struct FormBodyTests {
    let allowed: Set<String> = ["csrf", "value", "extra"]

    @Test func readsFieldsWithEscapesAndPlus() throws {
        let body = try FormBody.parse(Array("csrf=a%2Bb&value=%EC%95%88%EB%85%95+there&value=two&extra=".utf8), allowed: allowed, repeatable: ["value"])
        #expect(body.value("csrf") == "a+b")
        #expect(body.values("value") == ["안녕 there", "two"])
        #expect(body.value("extra") == "")
    }

    @Test func anEmptyBodyHasNoFields() throws {
        let body = try FormBody.parse([UInt8](), allowed: allowed)
        #expect(body.fields.isEmpty)
        #expect(throws: FormBodyError("field \"csrf\" is missing")) { try body.require("csrf") }
    }

    @Test(arguments: [
        ("csrf", "field 1 has no \"=\" (each field is name=value)"),
        ("=x", "field 1 has no name"),
        ("csrf=1&&value=2", "field 2 has no \"=\" (each field is name=value)"),
        ("other=1", "field \"other\" is not expected here (expected: csrf, extra, value)"),
        ("csrf=1&csrf=2", "field \"csrf\" appears more than once"),
        ("value=1&value=2", "field \"value\" appears more than once"),
        ("csrf=%4", "field \"csrf\" has an incomplete percent escape (% needs two hex digits)"),
        ("csrf=%zz", "field \"csrf\" has an incomplete percent escape (% needs two hex digits)"),
        ("csrf=%FF%FE", "field \"csrf\" is not UTF-8 text"),
        ("c%srf=1", "the name of field 1 has an incomplete percent escape (% needs two hex digits)"),
    ])
    func rejectsWhatIsNotAStrictForm(body: String, message: String) {
        #expect(throws: FormBodyError(message)) {
            try FormBody.parse(Array(body.utf8), allowed: allowed)
        }
    }

    @Test func limitsTheNumberOfFields() {
        let body = (0...FormBody.maxFields).map { _ in "value=1" }.joined(separator: "&")
        #expect(throws: FormBodyError("the form has more than \(FormBody.maxFields) fields")) {
            try FormBody.parse(Array(body.utf8), allowed: allowed, repeatable: ["value"])
        }
    }

    @Test(arguments: [("1", 1), ("12", 12)])
    func readsPositions(text: String, number: Int) throws {
        let body = try FormBody.parse(Array("value=\(text)".utf8), allowed: allowed)
        #expect(try body.requirePosition("value") == number)
    }

    @Test(arguments: ["0", "-1", "x", "1.5", "99999999999"])
    func refusesPositionsThatAreNotWholeNumbersFromOne(text: String) throws {
        let body = try FormBody.parse(Array("value=\(text)".utf8), allowed: allowed)
        #expect(throws: FormBodyError("field \"value\" must be a whole number from 1, not \"\(text)\"")) {
            try body.requirePosition("value")
        }
    }

    @Test func theErrorTellsThatTheFormCouldNotBeRead() {
        #expect(FormBodyError("field \"csrf\" is missing").description == "The form could not be read: field \"csrf\" is missing.")
    }
}

@Suite(.timeLimit(.minutes(5))) struct FormMediaTypeTests {
    @Test(arguments: [
        ("application/x-www-form-urlencoded", true), ("Application/X-WWW-Form-URLEncoded", true),
        ("application/x-www-form-urlencoded; charset=UTF-8", true), (" \tapplication/x-www-form-urlencoded \t;charset=utf-8", true),
        ("application/x-www-form-urlencodedx", false), ("application/json", false), ("", false), (";application/x-www-form-urlencoded", false),
        ("multipart/form-data; boundary=x", false), ("application/x\u{0D}www-form-urlencoded", false), ("application/x-www-form-urlencoded\u{00A0}", false),
    ])
    func recognisesTheFormMediaType(_ contentType: String, _ isForm: Bool) {
        #expect(FormBody.isFormMediaType(contentType) == isForm)
    }
}

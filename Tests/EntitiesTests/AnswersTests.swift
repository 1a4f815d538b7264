import Entities
import Foundation
import SurveyTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct AnswersTests {
    @Test func uploadBodyUsesTheRightJSONTypes() throws {
        let upload = AnswersUpload(answers: [
            "name": .string("김철수"),
            "age": .number(30),
            "height": .number(172.5),
            "like": .integer(5),
            "occasions": .list(["home", "bar"]),
            "none": .list([]),
        ])
        let text = String(decoding: upload.encoded(), as: UTF8.self)
        #expect(text == #"{"answers":{"age":30,"height":172.5,"like":5,"name":"김철수","none":[],"occasions":["home","bar"]}}"#)
        let object = try #require(try JSONSerialization.jsonObject(with: upload.encoded()) as? [String: Any])
        let answers = try #require(object["answers"] as? [String: Any])
        #expect(answers["occasions"] is [String])
        #expect(answers["like"] as? Int == 5)
    }

    @Test func sameAnswersGiveSameBytes() {
        let a = AnswersUpload(answers: ["b": .string("2"), "a": .integer(1), "c": .list(["x"])])
        let b = AnswersUpload(answers: ["c": .list(["x"]), "a": .integer(1), "b": .string("2")])
        #expect(a.encoded() == b.encoded())
    }

    @Test func uploadRoundTrips() throws {
        let upload = AnswersUpload(answers: ["s": .string("x"), "n": .number(1.25), "i": .integer(7), "l": .list(["a"])])
        #expect(try AnswersUpload.decode(upload.encoded()) == upload)
        #expect(throws: ResponseDecodingError.self) { try AnswersUpload.decode(Data(#"{"answers":{"x":{}}}"#.utf8)) }
    }

    @Test(arguments: [
        ("answers/common-next-1.json", AnswersResult(isSuccess: true, nextTypeId: "1")),
        ("answers/common-next-2.json", AnswersResult(isSuccess: true, nextTypeId: "2")),
        ("answers/final.json", AnswersResult(isSuccess: true, nextTypeId: nil)),
        ("answers/rejected.json", AnswersResult(isSuccess: false, nextTypeId: nil)),
    ])
    func answerResponsesDecode(path: String, expected: AnswersResult) throws {
        #expect(try AnswersResult.decode(response: try Fixtures.data(path)) == expected)
    }

    @Test(arguments: [
        (#"{"status":200,"data":{"isSuccess":true,"nextTypeId":2}}"#, AnswersResult(isSuccess: true, nextTypeId: "2")),
        (#"{"status":200,"data":{"isSuccess":true,"nextTypeId":""}}"#, AnswersResult(isSuccess: true, nextTypeId: nil)),
        (#"{"status":200,"data":{"isSuccess":true,"nextTypeId":null}}"#, AnswersResult(isSuccess: true, nextTypeId: nil)),
    ])
    func lenientNextTypeId(json: String, expected: AnswersResult) throws {
        #expect(try AnswersResult.decode(response: Data(json.utf8)) == expected)
    }

    @Test(arguments: [
        (#"<html>"#, "not valid JSON"),
        (#"{"status":200}"#, "data: missing"),
        (#"{"status":200,"data":{}}"#, "data.isSuccess: missing"),
        (#"{"status":200,"data":{"isSuccess":true,"nextTypeId":{}}}"#, "data.nextTypeId: expected a string"),
        (#"{"status":503,"data":{"isSuccess":false}}"#, "envelope status is 503, expected 200"),
    ])
    func undecodableResponsesSayWhatAndWhere(json: String, detail: String) {
        do throws(ResponseDecodingError) {
            _ = try AnswersResult.decode(response: Data(json.utf8))
            Issue.record("decoded \(json)")
        } catch {
            #expect(error.detail == detail)
            #expect(error.message.hasPrefix("the answers response could not be decoded: \(detail)."))
        }
    }

    @Test func resultEncodesAsAServerWould() throws {
        let result = AnswersResult(isSuccess: true, nextTypeId: "1")
        #expect(try AnswersResult.decode(response: result.encodedResponse()) == result)
    }
}

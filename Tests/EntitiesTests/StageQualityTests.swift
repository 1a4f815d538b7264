import Entities
import Foundation
import Testing

/// A stage's quality as the journal keeps it and as a server receives it.
@Suite(.timeLimit(.minutes(5)))
struct StageQualityTests {
    static let sample = StageQuality(
        paradata: StageParadata(
            questions: [
                QuestionTiming(position: 0, milliseconds: 4210, input: PageInput(taps: 3, keys: 12, spanMilliseconds: 3900, stillThereShown: 0)),
                QuestionTiming(position: 1, milliseconds: nil),
                QuestionTiming(position: 2, milliseconds: 380, skipped: true),
                QuestionTiming(position: 2, milliseconds: 1200),
            ],
            backs: 1, changed: 1, restarted: true),
        flags: [QualityFlag(.speeding, [2, 3, 1200]), QualityFlag(.burst, [9, 300, 6])])

    @Test func theJournalsFormIsWhatTheEncoderWritesAndReadsBack() throws {
        var out = JSONOutput(escapesSlashes: true)
        Self.sample.write(to: &out)
        let written = String(decoding: out.bytes, as: UTF8.self)
        #expect(written == #"{"q":[[0,4210,3,12,3900,0],[1,-1],[2,380],[2,1200]],"k":[2],"b":1,"c":1,"r":true,"f":[["speeding",2,3,1200],["burst",9,300,6]]}"#)
        let encoded = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(Self.sample)) as? NSDictionary
        let parsed = try JSONSerialization.jsonObject(with: Data(out.bytes)) as? NSDictionary
        #expect(encoded != nil && encoded == parsed)
        #expect(try JSONDecoder().decode(StageQuality.self, from: Data(out.bytes)) == Self.sample)
    }

    @Test func anUnmeasuredStageIsSmall() throws {
        let plain = StageQuality(paradata: StageParadata(questions: [QuestionTiming(position: 0, milliseconds: 2000)]))
        var out = JSONOutput(escapesSlashes: true)
        plain.write(to: &out)
        #expect(String(decoding: out.bytes, as: UTF8.self) == #"{"q":[[0,2000]]}"#)
        #expect(try JSONDecoder().decode(StageQuality.self, from: Data(out.bytes)) == plain)
    }

    @Test func aFlagThisVersionDoesNotKnowIsLeftOutAndABadRowIsAnError() throws {
        let future = Data(#"{"q":[[0,5]],"f":[["telepathy",1],["speeding",1,1,5]]}"#.utf8)
        #expect(try JSONDecoder().decode(StageQuality.self, from: future).flags == [QualityFlag(.speeding, [1, 1, 5])])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(StageQuality.self, from: Data(#"{"q":[[0,5,1]]}"#.utf8)) }
    }

    @Test func theHeadersCarryCountsAndFlagsAndReadBack() {
        let headers = Dictionary(uniqueKeysWithValues: Self.sample.headers.map { ($0.name, $0.value) })
        #expect(headers["Survey-Paradata"] == "questions=4, timed=2, total_ms=5410, median_ms=2705, backs=1, changed=1, idle_gaps=0, still_there=0, restarted")
        #expect(headers["Survey-Quality"] == "speeding;fast=2;judged=3;median_ms=1200, burst;completions=9;window_s=300;limit=6")
        #expect(StageQuality.flags(fromHeader: headers["Survey-Quality"]!) == Self.sample.flags)
        // Without a flag, no Survey-Quality.
        let clean = StageQuality(paradata: Self.sample.paradata)
        #expect(clean.headers.map(\.name) == ["Survey-Paradata"])
        // Both stay small.
        #expect(headers.values.allSatisfy { $0.utf8.count < 160 })
    }

    @Test func aPageCannotClaimMoreThanTheLimit() {
        let input = PageInput(taps: -4, keys: Int.max, spanMilliseconds: 5, stillThereShown: 1)
        #expect(input.taps == 0 && input.keys == PageInput.limit)
    }
}

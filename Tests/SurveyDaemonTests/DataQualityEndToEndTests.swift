#if canImport(Glibc)
import Glibc
#endif
import Entities
import Foundation
import Logging
import MockServer
@testable import SurveyDaemon
import SurveyTesting
import Testing

/// Respondents of each kind through the kiosk pages of a whole daemon (in process, over HTTP on
/// loopback, its journal and queue on disk, delivering to the mock server), its monotonic clock
/// moved by the test as the respondents' time passes: scripted kinds are flagged, human-timed
/// ones are not, and every one of them is delivered exactly once with its answers as given.
@Suite(.timeLimit(.minutes(10))) struct DataQualityEndToEndTests {
    /// Six scores (questions of 8 to 18 words) and one choice of four.
    static let words = [8, 14, 10, 18, 12, 16, 9]
    static let questionnaire: String = {
        var forms: [String] = []
        for (index, count) in words.enumerated() {
            let question = (["Please", "tell", "us"] + Array(repeating: "really", count: count - 4) + ["much?"]).joined(separator: " ")
            if index < 6 {
                forms.append(#"{"name":"s\#(index + 1)","question":"\#(question)","required":true,"type":"radioNumber","placeholder":0,"validate":[]}"#)
            } else {
                let options = ["friend", "poster", "web", "other"].map { #"{"label":"\#($0)","value":"\#($0)","checked":false}"# }.joined(separator: ",")
                forms.append(#"{"name":"c7","question":"\#(question)","required":true,"type":"radio","placeholder":[\#(options)],"validate":[]}"#)
            }
        }
        return #"{"status":200,"data":{"forms":[\#(forms.joined(separator: ","))],"escapeValidate":[]}}"#
    }()

    enum Kind: String, CaseIterable {
        case human, child, straightLiner = "straight-liner", repeater, fastScript = "fast script", pacedScript = "paced script"
    }

    /// One respondent: how long each question takes, what it answers, what its page reports.
    struct Respondent {
        var kind: Kind
        var answers: [String]
        var times: [Int]
        var pageInput: [String?]
        /// Virtual seconds from the previous completion to this start.
        var gap: Int
    }

    /// The reading model: 1.2 s to take in the screen, 280 ms a word with log-normal noise
    /// (sigma 0.25), then 0.8 to 1.6 s to choose; a page reports 1 to 3 taps within that time.
    static func human(_ rng: inout SplitMix) -> (times: [Int], input: [String?]) {
        var times: [Int] = []
        var input: [String?] = []
        for count in words {
            let noise = exp(0.25 * Self.normal(&rng))
            let ms = 1200 + Int(Double(count) * 280 * noise) + 800 + Int(rng.next() % 800)
            times.append(ms)
            let taps = 1 + Int(rng.next() % 3)
            input.append("\(taps).0.\(taps > 1 ? Int(rng.next() % 900) : 0).0")
        }
        return (times, input)
    }

    /// A standard normal number (Box-Muller).
    static func normal(_ rng: inout SplitMix) -> Double {
        let u = (Double(rng.next() >> 11) + 0.5) / Double(1 << 53)
        let v = Double(rng.next() >> 11) / Double(1 << 53)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }

    static func randomAnswers(_ rng: inout SplitMix) -> [String] {
        (0..<6).map { _ in String(1 + Int(rng.next() % 7)) } + [["friend", "poster", "web", "other"][Int(rng.next() % 4)]]
    }

    /// Each kind in a block of its own (`count` respondents), ten minutes apart, so that one
    /// kind's burst is not another's.
    static func visitors(count: Int, seed: UInt64) -> [Respondent] {
        var rng = SplitMix(seed: seed)
        var all: [Respondent] = []
        for kind in Kind.allCases {
            for index in 0..<count {
                let gap = index == 0 ? 600 : 20 + Int(rng.next() % 160)
                switch kind {
                case .human:
                    let (times, input) = human(&rng)
                    all.append(Respondent(kind: kind, answers: randomAnswers(&rng), times: times, pageInput: input, gap: gap))
                case .child:
                    let times = words.map { _ in 300 + Int(rng.next() % 400) }
                    all.append(Respondent(kind: kind, answers: randomAnswers(&rng), times: times, pageInput: times.map { _ in "1.0.0.0" }, gap: gap))
                case .straightLiner:
                    let (times, input) = human(&rng)
                    let score = String(1 + Int(rng.next() % 7))
                    all.append(Respondent(kind: kind, answers: Array(repeating: score, count: 6) + ["web"], times: times, pageInput: input, gap: gap))
                case .repeater:
                    // A person takes the survey, then again 10 to 90 s later with the same answers.
                    let (times, input) = human(&rng)
                    let answers = randomAnswers(&rng)
                    all.append(Respondent(kind: .human, answers: answers, times: times, pageInput: input, gap: gap))
                    let again = human(&rng)
                    all.append(Respondent(kind: kind, answers: answers, times: again.times, pageInput: again.input, gap: 10 + Int(rng.next() % 80)))
                case .fastScript:
                    all.append(Respondent(kind: kind, answers: randomAnswers(&rng), times: words.map { _ in 0 }, pageInput: words.map { _ in nil }, gap: index == 0 ? 600 : 0))
                case .pacedScript:
                    all.append(Respondent(kind: kind, answers: randomAnswers(&rng), times: words.map { _ in 3000 }, pageInput: words.map { _ in nil }, gap: gap))
                }
            }
        }
        return all
    }

    /// The flag each scripted kind must raise.
    static let expected: [Kind: QualityFlag.Kind] = [
        .child: .speeding, .straightLiner: .straightLining, .repeater: .rapidRepeat, .fastScript: .speeding, .pacedScript: .mechanical,
    ]

    @Test func scriptedRespondentsAreFlaggedHumanOnesAreNotAndAllAreDeliveredOnce() async throws {
        let perKind = Int(ProcessInfo.processInfo.environment["SURVEYD_QUALITY_RESPONDENTS"] ?? "") ?? 200
        let dir = try TemporaryDirectory(prefix: "dq")
        defer { dir.remove() }
        let fixtures = dir.appending("fixtures")
        try FileManager.default.createDirectory(at: fixtures.appendingPathComponent("questions"), withIntermediateDirectories: true)
        try Data(#"{"quality":{"rules":[],"otherwise":null}}"#.utf8).write(to: fixtures.appendingPathComponent("routing.json"))
        for lang in ["en", "ko"] { try Data(Self.questionnaire.utf8).write(to: fixtures.appendingPathComponent("questions/quality.\(lang).json")) }
        var quiet = Logger(label: "dq")
        quiet.logLevel = .critical
        let record = dir.appending("record.jsonl")
        let mock = try await InProcessMockServer.start(configuration: MockServerConfiguration(fixtures: fixtures, recordFile: record), logger: quiet)
        let clock = TestClock()
        let configuration = try await InProcessDaemon.configuration(in: dir, serverURL: "http://127.0.0.1:\(mock.port)") { flags in
            flags[\.kioskListen] = "127.0.0.1:0"
            flags[\.firstStage] = "quality"
            flags[\.defaultLanguage] = .en
            flags[\.deliveryWaitSeconds] = 0
            flags[\.durability] = .relaxed
        }
        let daemon = try await Daemon(configuration: configuration, version: "test", logger: quiet, clock: clock.monotonic)
        let (running, endpoints) = await InProcessDaemon.start(daemon)
        defer { running.cancel() }
        let visitor = try KioskVisitor(url: try #require(endpoints?.kioskURL))

        let respondents = Self.visitors(count: perKind, seed: 42)
        for respondent in respondents {
            clock.advance(Double(respondent.gap))
            try await visitor.start()
            for (index, answer) in respondent.answers.enumerated() {
                clock.advance(Double(respondent.times[index]) / 1000)
                var fields = [("csrf", visitor.hidden("csrf") ?? ""), ("question", visitor.hidden("question") ?? ""), ("position", visitor.hidden("position") ?? ""), ("value", answer)]
                if let input = respondent.pageInput[index] { fields.append(("pd", input)) }
                try await visitor.post("/answer", fields)
            }
            #expect(visitor.page.contains("<div class=\"end\">"), "the end screen follows the last answer")
        }

        // Every completion reaches the server once.
        var lines: [RecordedSubmission] = []
        for _ in 0..<600 {
            lines = (try? String(contentsOf: record, encoding: .utf8))?.split(separator: "\n").compactMap { try? JSONDecoder().decode(RecordedSubmission.self, from: Data($0.utf8)) } ?? []
            if lines.count >= respondents.count { break }
            clock.advance(1)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(lines.count == respondents.count, "\(lines.count) of \(respondents.count) delivered")
        #expect(Set(lines.compactMap(\.idempotencyKey)).count == lines.count, "no upload counted twice")

        // In the order they completed (one kiosk, one respondent at a time), with their answers as given.
        var flagged: [Kind: Int] = [:]
        var counts: [Kind: Int] = [:]
        var missing: [String] = []
        for (respondent, line) in zip(respondents, lines) {
            let given = Dictionary(uniqueKeysWithValues: respondent.answers.enumerated().map { index, value in
                index < 6 ? ("s\(index + 1)", AnswerValue.integer(Int(value)!)) : ("c7", AnswerValue.string(value))
            })
            #expect(line.answers == given)
            #expect(line.paradata?.hasPrefix("questions=7, ") == true)
            let flags = StageQuality.flags(fromHeader: line.quality ?? "").map(\.kind)
            counts[respondent.kind, default: 0] += 1
            if let expected = Self.expected[respondent.kind] {
                if flags.contains(expected) { flagged[respondent.kind, default: 0] += 1 } else { missing.append("\(respondent.kind.rawValue): \(line.quality ?? "no flag")") }
            } else if !flags.isEmpty {
                flagged[respondent.kind, default: 0] += 1
                missing.append("human flagged: \(line.quality ?? "")")
            }
        }
        // How regular the human-timed respondents were: the least coefficient of variation of
        // their times, beside the mechanical threshold.
        func cv(_ times: [Int]) -> Double {
            let values = times.map(Double.init)
            let mean = values.reduce(0, +) / Double(values.count)
            return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)).squareRoot() / mean
        }
        let leastHumanCV = respondents.filter { $0.kind == .human }.map { cv($0.times) }.min() ?? 0
        print("data quality: least coefficient of variation of a human's times \(String(format: "%.3f", leastHumanCV))")
        // What a server received for an unflagged and a flagged stage.
        if let human = zip(respondents, lines).first(where: { $0.0.kind == .human })?.1, let child = zip(respondents, lines).first(where: { $0.0.kind == .child })?.1 {
            print("data quality: unflagged Survey-Paradata: \(human.paradata ?? "none"); Survey-Quality: \(human.quality ?? "none")")
            print("data quality: flagged Survey-Paradata: \(child.paradata ?? "none"); Survey-Quality: \(child.quality ?? "none")")
        }
        let table = Kind.allCases.map { "\($0.rawValue) \(flagged[$0] ?? 0)/\(counts[$0] ?? 0)" }.joined(separator: ", ")
        print("data quality: flagged \(table)")
        #expect(missing.isEmpty, "\(missing.prefix(10))")
        #expect((flagged[.human] ?? 0) == 0)
        for kind in Self.expected.keys { #expect(flagged[kind] == counts[kind], "\(kind.rawValue): \(table)") }
        running.cancel()
        _ = await running.result
        await daemon.close()
        try await mock.stop()
    }
}

public import Entities
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `mock/routing.json`: how the mock server picks `nextTypeId` after an accepted upload
/// (documented in `mock/README.md`). Rules are tried in order; the first match wins; else `otherwise`.
public struct Routing: Sendable, Decodable {
    public struct Rule: Sendable, Decodable {
        public var answer: String
        public var min: Double?
        public var max: Double?
        public var equals: AnswerValue?
        public var next: String
    }

    public struct Stage: Sendable, Decodable {
        public var rules: [Rule]
        public var otherwise: String?
    }

    public var stages: [String: Stage]

    public init(from decoder: any Decoder) throws {
        stages = try [String: Stage](from: decoder)
    }

    /// The next stage after `stage` for these answers; nil ends the survey.
    public func next(after stage: String, answers: [String: AnswerValue]) -> String? {
        guard let entry = stages[stage] else { return nil }
        for rule in entry.rules {
            guard let answer = answers[rule.answer] else { continue }
            if let equals = rule.equals {
                if Self.same(answer, equals) { return rule.next }
                continue
            }
            guard let value = Self.number(answer) else { continue }
            if let min = rule.min, value < min { continue }
            if let max = rule.max, value > max { continue }
            return rule.next
        }
        return entry.otherwise
    }

    static func number(_ value: AnswerValue) -> Double? {
        switch value {
        case .integer(let n): Double(n)
        case .number(let n): n
        default: nil
        }
    }

    static func same(_ a: AnswerValue, _ b: AnswerValue) -> Bool {
        if let x = number(a), let y = number(b) { return x == y }
        return a == b
    }
}

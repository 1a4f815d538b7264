#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A validation rule of a form: a check and the text shown when it fails.
public struct Rule: Sendable, Hashable {
    public var check: Check
    /// Shown to the respondent when the check fails (`validateText`).
    public var message: String

    public init(check: Check, message: String) {
        self.check = check
        self.message = message
    }
}

/// A screening rule (`escapeValidate`): when the named answer is given and fails the check,
/// the respondent is not eligible.
public struct ScreeningRule: Sendable, Hashable {
    /// The name of the answer the rule looks at.
    public var answer: String
    public var check: Check

    public init(answer: String, check: Check) {
        self.answer = answer
        self.check = check
    }
}

/// The five rule types of the contract, by their wire names.
public enum RuleType: String, Sendable, Hashable, CaseIterable {
    case not, minMax, sameAS, pattern, minMaxLength
}

/// What a rule checks, with a target of the right shape for its type.
public enum Check: Sendable, Hashable {
    /// Passes when the answer is not equal to the target (`not`).
    case notEqual(JSONValue)
    /// Passes when the answer is a number within the bounds, inclusive (`minMax`).
    case range(Bounds<Double>)
    /// Passes when the answer equals the literal or the named answer (`sameAS`).
    case sameAs(SameAsTarget)
    /// Passes when the whole string matches (`pattern`).
    case pattern(Pattern)
    /// Passes when the length (characters of a string, items of a list) is within the bounds (`minMaxLength`).
    case length(Bounds<Int>)

    /// The wire name of this check's rule type.
    public var type: RuleType {
        switch self {
        case .notEqual: .not
        case .range: .minMax
        case .sameAs: .sameAS
        case .pattern: .pattern
        case .length: .minMaxLength
        }
    }
}

/// Inclusive bounds where either side may be open (`"-"` on the wire).
public struct Bounds<Value: Comparable & Sendable & Hashable>: Sendable, Hashable {
    public var lower: Value?
    public var upper: Value?

    public init(lower: Value?, upper: Value?) {
        self.lower = lower
        self.upper = upper
    }

    public func contains(_ value: Value) -> Bool {
        if let lower, value < lower { return false }
        if let upper, value > upper { return false }
        return true
    }
}

/// The target of a `sameAS` rule.
public enum SameAsTarget: Sendable, Hashable {
    /// A literal value to compare with.
    case literal(JSONValue)
    /// `"$name"`: the answer named `name`, given earlier by the same respondent.
    case answer(named: String)
}

/// A regular expression of a `pattern` rule, written bare or as `/body/flags`.
///
/// The expression is compiled once, when the pattern is parsed; matching reuses it. Two
/// patterns are equal when their body and flags are.
public struct Pattern: Sendable, Hashable {
    /// The expression without slashes and flags.
    public let body: String
    /// Case-insensitive matching (`i`).
    public let ignoresCase: Bool
    /// `^` and `$` match at line breaks (`m`).
    public let multiline: Bool
    /// `.` matches line breaks (`s`).
    public let dotMatchesNewlines: Bool
    /// The compiled expression with its options applied.
    public var regex: Regex<AnyRegexOutput> { compiled.regex }
    private let compiled: Compiled

    /// Holds the compiled expression. `Regex<AnyRegexOutput>` is not `Sendable` only because its
    /// output type is not; the regex itself is immutable once built (its lazily lowered program
    /// is published atomically), and each match keeps its own state.
    private final class Compiled: @unchecked Sendable {
        let regex: Regex<AnyRegexOutput>
        init(_ regex: Regex<AnyRegexOutput>) { self.regex = regex }
    }

    /// The flags accepted after `/body/`. `u` (Unicode) is accepted and has no effect:
    /// matching is always Unicode-aware.
    public static let supportedFlags: Set<Character> = ["i", "m", "s", "u"]

    /// Parses a wire pattern and compiles it.
    ///
    /// - Throws: `PatternError` when a flag is unsupported or the expression does not compile.
    public init(parsing source: String) throws(PatternError) {
        var body = source
        var flags = ""
        if source.count >= 2, source.first == "/", let close = source.lastIndex(of: "/"), close > source.startIndex {
            body = String(source[source.index(after: source.startIndex)..<close])
            flags = String(source[source.index(after: close)...])
            let unsupported = flags.filter { !Self.supportedFlags.contains($0) }
            if !unsupported.isEmpty {
                throw PatternError(
                    source: source,
                    reason: "unsupported flag\(unsupported.count > 1 ? "s" : "") \"\(unsupported)\"; supported flags are i, m, s and u"
                )
            }
        }
        let ignoresCase = flags.contains("i")
        let multiline = flags.contains("m")
        let dotMatchesNewlines = flags.contains("s")
        let regex: Regex<AnyRegexOutput>
        do {
            var compiled = try Regex(body)
            if ignoresCase { compiled = compiled.ignoresCase() }
            if multiline { compiled = compiled.anchorsMatchLineEndings() }
            if dotMatchesNewlines { compiled = compiled.dotMatchesNewlines() }
            regex = compiled
        } catch {
            throw PatternError(source: source, reason: "it does not compile: \(error)")
        }
        self.body = body
        self.ignoresCase = ignoresCase
        self.multiline = multiline
        self.dotMatchesNewlines = dotMatchesNewlines
        self.compiled = Compiled(regex)
    }

    /// True when the whole of `text` matches the expression.
    public func matchesWhole(_ text: String) -> Bool {
        (try? regex.wholeMatch(in: text)) != nil
    }

    public static func == (lhs: Pattern, rhs: Pattern) -> Bool {
        lhs.body == rhs.body && lhs.ignoresCase == rhs.ignoresCase && lhs.multiline == rhs.multiline && lhs.dotMatchesNewlines == rhs.dotMatchesNewlines
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(body)
        hasher.combine(ignoresCase)
        hasher.combine(multiline)
        hasher.combine(dotMatchesNewlines)
    }
}

/// A `pattern` rule target that cannot be used.
public struct PatternError: Error, Sendable, CustomStringConvertible {
    public var source: String
    public var reason: String
    public var description: String { "pattern \(JSONValue.string(source).jsonText): \(reason)" }
}

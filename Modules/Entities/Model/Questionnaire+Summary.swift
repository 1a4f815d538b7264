import Foundation

/// Human-readable summaries of a questionnaire, for `surveyctl lint` and operators.

extension Check: CustomStringConvertible {
    /// The rule as written on the wire, e.g. `minMax [19, -]` or `sameAS $email`.
    public var description: String {
        func bound<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "-" }
        switch self {
        case .notEqual(let target): return "not \(target.jsonText)"
        case .range(let b): return "minMax [\(bound(b.lower.map(Self.number))), \(bound(b.upper.map(Self.number)))]"
        case .sameAs(.literal(let target)): return "sameAS \(target.jsonText)"
        case .sameAs(.answer(let name)): return "sameAS $\(name)"
        case .pattern(let p):
            var flags = ""
            if p.ignoresCase { flags += "i" }
            if p.multiline { flags += "m" }
            if p.dotMatchesNewlines { flags += "s" }
            return "pattern " + (flags.isEmpty ? p.body : "/\(p.body)/\(flags)")
        case .length(let b): return "minMaxLength [\(bound(b.lower)), \(bound(b.upper))]"
        }
    }

    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

extension Questionnaire {
    /// A few lines describing the stage: each form with its type, required flag and rules,
    /// then the screening rules.
    public var summaryLines: [String] {
        var lines = ["stage \"\(stage)\": \(forms.count) form\(forms.count == 1 ? "" : "s"), \(screening.count) screening rule\(screening.count == 1 ? "" : "s")"]
        let nameWidth = forms.map(\.name.count).max() ?? 0
        for (index, form) in forms.enumerated() {
            var line = "  \(index + 1). \(form.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0))  "
            line += form.type.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
            line += form.isRequired ? "required" : "optional"
            let options = form.input.options
            if !options.isEmpty { line += "  options: " + options.map(\.value).joined(separator: ",") }
            if !form.rules.isEmpty { line += "  rules: " + form.rules.map(\.check.description).joined(separator: "; ") }
            lines.append(line)
        }
        for rule in screening {
            lines.append("  screening: \(rule.answer) \(rule.check)")
        }
        return lines
    }
}

import Foundation

/// What the declarations say to people: the flags' help and `doc/configuration.md`'s table.
extension DaemonSetting {
    /// The flag's value in the help and the documentation, e.g. `seconds`, `ko|en`.
    public var valueName: String {
        switch kind {
        case .text(let valueName, _, _): valueName
        case .choice(let names): names.joined(separator: "|")
        case .seconds: "seconds"
        case .wholeNumber(_, let valueName): valueName
        }
    }

    /// What values the setting takes, e.g. `whole number from 1 to 64`.
    public var accepts: String {
        switch kind {
        case .text(_, let accepts, _): accepts
        case .choice(let names): DaemonSetting.oneOf(names.map { "`\($0)`" })
        case .seconds(let bounds): "seconds, \(bounds.requirement)"
        case .wholeNumber(let bounds, _): "whole number, \(bounds.requirement)"
        }
    }

    /// The default as the documentation states it.
    public var defaultDescription: String {
        if let computedDefault { return computedDefault }
        if let unsetMeaning { return "none (\(unsetMeaning))" }
        switch defaultValue {
        case .text(let text)?: return "`\(text)`"
        case .number(let number)?: return "`\(DaemonSetting.numberText(number))`"
        case .wholeNumber(let whole)?: return "`\(whole)`"
        case nil: return "none"
        }
    }

    /// The flag's help: what it does, what it takes (the parser lists a choice's names itself),
    /// its default and its variable.
    public var help: String {
        var sentences = [doc]
        if case .choice = kind {} else { sentences.append(accepts) }
        sentences += ["Default: \(defaultDescription)", "Environment: \(variable)"]
        return sentences.map { $0.prefix(1).uppercased() + $0.dropFirst() + "." }.joined(separator: " ").replacingOccurrences(of: "`", with: "")
    }

    /// The table of every setting in `doc/configuration.md`, one row per declaration.
    public static var markdownTable: String {
        var lines = [
            "| setting (JSON key) | environment | flag | accepts | default | meaning |",
            "|---|---|---|---|---|---|",
        ]
        for setting in all {
            let value = if case .choice = setting.kind { setting.valueName } else { setting.valueName.uppercased() }
            let flag = setting.flag.map { "`--\($0) \(value)`" } ?? "none"
            let cells = ["`\(setting.key)`", "`\(setting.variable)`", flag, setting.accepts, setting.defaultDescription, setting.doc]
            lines.append("| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

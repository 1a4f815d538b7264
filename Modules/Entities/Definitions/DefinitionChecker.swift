import Foundation

/// Turns a wire questionnaire into the checked model, collecting every error on the way, and
/// every answer of an earlier stage its rules name (checked by the caller, against the names it
/// knows, if at all).
struct DefinitionChecker {
    /// A problem, or a reference to an earlier stage's answer: an error where that answer is
    /// unknown.
    enum Finding {
        case error(DefinitionError)
        case reference(AnswerReference)
    }

    let stage: String
    /// In the order of the definition.
    private(set) var findings: [Finding] = []
    private var formNames: Set<String> = []

    init(stage: String) {
        self.stage = stage
    }

    /// The errors found, each reference to an answer not in `knownAnswerNames` among them in its
    /// place; nil leaves references out.
    func errors(knownAnswerNames: Set<String>?) -> [DefinitionError] {
        findings.compactMap { finding in
            switch finding {
            case .error(let error):
                return error
            case .reference(let reference):
                guard let knownAnswerNames, !knownAnswerNames.contains(reference.name) else { return nil }
                return reference.unresolved
            }
        }
    }

    var references: [AnswerReference] {
        findings.compactMap { if case .reference(let reference) = $0 { reference } else { nil } }
    }

    mutating func check(_ wire: WireQuestionnaire) -> Questionnaire {
        let allNames = Set(wire.forms.map(\.name))
        var forms: [Form] = []
        for (index, wireForm) in wire.forms.enumerated() {
            let location = DefinitionLocation(stage: stage, formIndex: index, formName: wireForm.name)
            if !formNames.insert(wireForm.name).inserted {
                fail(.duplicateFormName, location, "the form name \"\(wireForm.name)\" is used by an earlier form; form names must be unique because they key the upload")
            }
            if wireForm.name.isEmpty {
                fail(.malformed, location, "the form name is empty; it keys the answer in the upload")
            }
            let input = checkInput(wireForm, location)
            var rules: [Rule] = []
            for (ruleIndex, wireRule) in (wireForm.validate ?? []).enumerated() {
                var ruleLocation = location
                ruleLocation.ruleIndex = ruleIndex
                if let check = checkRule(type: wireRule.type, target: wireRule.target, ruleLocation, names: allNames) {
                    rules.append(Rule(check: check, message: wireRule.validateText ?? ""))
                }
            }
            if let input {
                forms.append(Form(name: wireForm.name, question: wireForm.question, isRequired: wireForm.required ?? false, input: input, rules: rules))
            }
        }
        var screening: [ScreeningRule] = []
        for (index, wireRule) in (wire.escapeValidate ?? []).enumerated() {
            let location = DefinitionLocation(stage: stage, formName: wireRule.name, screeningIndex: index)
            if !allNames.contains(wireRule.name) {
                findings.append(.reference(AnswerReference(name: wireRule.name, rule: .screening, location: location)))
            }
            if let check = checkRule(type: wireRule.type, target: wireRule.target, location, names: allNames) {
                screening.append(ScreeningRule(answer: wireRule.name, check: check))
            }
        }
        return Questionnaire(stage: stage, forms: forms, screening: screening, externalReferences: references)
    }

    private mutating func fail(_ code: DefinitionError.Code, _ location: DefinitionLocation, _ message: String) {
        findings.append(.error(DefinitionError(code, at: location, message)))
    }

    // MARK: Forms

    private mutating func checkInput(_ form: WireQuestionnaire.WireForm, _ location: DefinitionLocation) -> FormInput? {
        guard let type = FormType(rawValue: form.type) else {
            let known = FormType.allCases.map(\.rawValue).joined(separator: ", ")
            fail(.unknownFormType, location, "unknown form type \"\(form.type)\"; expected one of \(known)")
            return nil
        }
        let placeholder = form.placeholder ?? .null
        switch type {
        case .text:
            switch placeholder {
            case .null: return .text(placeholder: nil)
            case .string(let text): return .text(placeholder: text)
            case .number, .bool: return .text(placeholder: placeholder.jsonText)
            case .array, .object:
                fail(.badPlaceholder, location, "a text form's placeholder must be a string, found \(placeholder.kindName)")
                return nil
            }
        case .number:
            switch placeholder {
            case .null: return .number(placeholder: nil)
            case .number(let value): return .number(placeholder: value)
            case .string(let text) where text.trimmingCharacters(in: .whitespaces).isEmpty: return .number(placeholder: nil)
            case .string(let text) where Double(text) != nil: return .number(placeholder: Double(text))
            default:
                fail(.badPlaceholder, location, "a number form's placeholder must be a number, found \(placeholder.kindName) \(placeholder.jsonText)")
                return nil
            }
        case .checkbox, .radio, .radioWithInput:
            guard let options = options(from: placeholder, location, type: type) else { return nil }
            if options.isEmpty {
                fail(.missingOptions, location, "a \(type.rawValue) form needs a non-empty list of options ({label, value, checked}) as its placeholder")
                return nil
            }
            switch type {
            case .checkbox: return .checkbox(options: options)
            case .radio: return .radio(options: options)
            default: return .choiceWithInput(options: options)
            }
        case .radioNumber:
            switch placeholder {
            case .null: return .score(options: [], defaultScore: nil)
            case .number(let value):
                if value == 0 { return .score(options: [], defaultScore: nil) }
                if let score = Int(exactly: value), FormInput.scoreRange.contains(score) {
                    return .score(options: [], defaultScore: score)
                }
                fail(.badPlaceholder, location, "a radioNumber placeholder must be 0 (no default) or a score from 1 to 7, found \(placeholder.jsonText)")
                return nil
            case .array:
                guard let options = options(from: placeholder, location, type: type) else { return nil }
                let checked = options.firstIndex { $0.checked }
                return .score(options: options, defaultScore: checked.flatMap { Int(options[$0].value) })
            default:
                fail(.badPlaceholder, location, "a radioNumber placeholder must be 0, a score from 1 to 7 or a list of options, found \(placeholder.kindName)")
                return nil
            }
        }
    }

    private mutating func options(from placeholder: JSONValue, _ location: DefinitionLocation, type: FormType) -> [ChoiceOption]? {
        guard case .array(let items) = placeholder else {
            fail(.missingOptions, location, "a \(type.rawValue) form needs a list of options ({label, value, checked}) as its placeholder, found \(placeholder.kindName)")
            return nil
        }
        var options: [ChoiceOption] = []
        var values: Set<String> = []
        var ok = true
        for (index, item) in items.enumerated() {
            guard case .object(let fields) = item,
                  case .string(let label)? = fields["label"],
                  case .string(let value)? = fields["value"]
            else {
                var optionLocation = location
                optionLocation.path = "placeholder[\(index)]"
                fail(.badPlaceholder, optionLocation, "an option must be an object with a string label and a string value, found \(item.jsonText)")
                ok = false
                continue
            }
            var checked = false
            if case .bool(let flag)? = fields["checked"] { checked = flag }
            if !values.insert(value).inserted {
                var optionLocation = location
                optionLocation.path = "placeholder[\(index)]"
                fail(.badPlaceholder, optionLocation, "the option value \"\(value)\" appears twice; option values must be unique")
                ok = false
            }
            options.append(ChoiceOption(label: label, value: value, checked: checked))
        }
        return ok ? options : nil
    }

    // MARK: Rules

    private mutating func checkRule(type rawType: String, target: JSONValue?, _ location: DefinitionLocation, names: Set<String>) -> Check? {
        // `sameAs` is accepted as a spelling of the contract's `sameAS`.
        guard let type = RuleType(rawValue: rawType == "sameAs" ? "sameAS" : rawType) else {
            let known = RuleType.allCases.map(\.rawValue).joined(separator: ", ")
            fail(.unknownRuleType, location, "unknown rule type \"\(rawType)\"; expected one of \(known)")
            return nil
        }
        let target = target ?? .null
        func bad(_ expected: String) -> Check? {
            fail(.badTarget, location, "a \(type.rawValue) rule's target must be \(expected), found \(target.jsonText)")
            return nil
        }
        switch type {
        case .not:
            switch target {
            case .string, .number, .array, .bool: return .notEqual(target)
            default: return bad("a string, number or list")
            }
        case .minMax:
            guard let (lower, upper) = bounds(target, integer: false) else {
                return bad("[min, max] with numbers or \"-\" for no bound")
            }
            guard lower?.isFinite ?? true, upper?.isFinite ?? true else {
                return bad("[min, max] with finite numbers or \"-\" for no bound")
            }
            if let lower, let upper, lower > upper { return bad("[min, max] with min <= max") }
            return .range(Bounds(lower: lower, upper: upper))
        case .minMaxLength:
            guard let (lower, upper) = bounds(target, integer: true) else {
                return bad("[min, max] with whole numbers >= 0 or \"-\" for no bound")
            }
            // A server may send 1e19 or "1e400": whole, but no Int holds it (Int(_:) would trap).
            let lowerLength = lower.map { Int(exactly: $0) }
            let upperLength = upper.map { Int(exactly: $0) }
            if lowerLength == .some(nil) || upperLength == .some(nil) {
                return bad("[min, max] with whole numbers from 0 to \(Int.max) or \"-\" for no bound")
            }
            if let lower, let upper, lower > upper { return bad("[min, max] with min <= max") }
            return .length(Bounds(lower: lowerLength ?? nil, upper: upperLength ?? nil))
        case .sameAS:
            switch target {
            case .string(let text) where text.hasPrefix("$"):
                let name = String(text.dropFirst())
                if !names.contains(name) {
                    findings.append(.reference(AnswerReference(name: name, rule: .sameAs, location: location)))
                }
                return .sameAs(.answer(named: name))
            case .string, .number, .bool, .array: return .sameAs(.literal(target))
            default: return bad("a literal or \"$name\"")
            }
        case .pattern:
            guard case .string(let source) = target else { return bad("a regular expression string") }
            do {
                return .pattern(try Pattern(parsing: source))
            } catch {
                fail(.badPattern, location, error.description)
                return nil
            }
        }
    }

    /// Parses `[min, max]` where each side is a number or `"-"`. Nil when the shape is wrong.
    private func bounds(_ target: JSONValue, integer: Bool) -> (Double?, Double?)? {
        guard case .array(let items) = target, items.count == 2 else { return nil }
        var result: [Double?] = []
        for item in items {
            switch item {
            case .string("-"): result.append(nil)
            case .number(let value):
                if integer && (value < 0 || value.rounded() != value) { return nil }
                result.append(value)
            case .string(let text) where Double(text) != nil:
                let value = Double(text)!
                if integer && (value < 0 || value.rounded() != value) { return nil }
                result.append(value)
            default: return nil
            }
        }
        return (result[0], result[1])
    }
}

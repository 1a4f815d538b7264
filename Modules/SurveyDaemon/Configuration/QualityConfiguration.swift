import Entities
public import Validation

/// The data-quality settings (`doc/data-quality.md`): whether stages are measured and judged,
/// which flags, and their thresholds. The defaults are ``QualityRules``'s.
public struct QualityConfiguration: Sendable, Hashable {
    /// Whether the daemon measures paradata and judges flags at all.
    public enum Switch: String, Sendable, Hashable, CaseIterable, SettingChoice {
        case on, off
    }

    public var measure: Switch = .on
    /// The flags judged, comma-separated (`speeding,straight_lining,rapid_repeat,burst,mechanical`);
    /// `none` judges none (paradata is still measured and sent).
    public var flags = QualityConfiguration.allFlags
    public var msPerWord = QualityRules().msPerWord
    public var minimumChoiceMs = QualityRules().minimumChoiceMs
    public var minimumEntryMs = QualityRules().minimumEntryMs
    public var msPerCharacter = QualityRules().msPerCharacter
    public var speedingSharePercent = Int(QualityRules().speedingShare * 100)
    public var straightLineRun = QualityRules().straightLineRun
    public var repeatWindowSeconds = QualityRules().repeatWindowSeconds
    public var repeatSharePercent = Int(QualityRules().repeatShare * 100)
    public var burstWindowSeconds = QualityRules().burstWindowSeconds
    public var handoverSeconds = QualityRules().handoverSeconds
    public var mechanicalCVPermille = QualityRules().mechanicalCVPermille

    public init() {}

    static let allFlags = QualityFlag.Kind.allCases.map(\.rawValue).joined(separator: ",")

    /// The rules the session manager judges by; nil when `measure` is off.
    public var rules: QualityRules? {
        guard measure == .on else { return nil }
        var rules = QualityRules()
        rules.enabled = (try? Self.flags(flags).get()) ?? Set(QualityFlag.Kind.allCases)
        rules.msPerWord = msPerWord
        rules.minimumChoiceMs = minimumChoiceMs
        rules.minimumEntryMs = minimumEntryMs
        rules.msPerCharacter = msPerCharacter
        rules.speedingShare = Double(speedingSharePercent) / 100
        rules.straightLineRun = straightLineRun
        rules.repeatWindowSeconds = repeatWindowSeconds
        rules.repeatShare = Double(repeatSharePercent) / 100
        rules.burstWindowSeconds = burstWindowSeconds
        rules.handoverSeconds = handoverSeconds
        rules.mechanicalCVPermille = mechanicalCVPermille
        return rules
    }

    /// The flags of a `qualityFlags` value (`none` is the empty set), or what is wrong with it.
    static func flags(_ text: String) -> Result<Set<QualityFlag.Kind>, FlagListError> {
        let names = text.split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
        if names == ["none"] { return .success([]) }
        var kinds = Set<QualityFlag.Kind>()
        for name in names {
            guard let kind = QualityFlag.Kind(rawValue: name) else {
                return .failure(FlagListError(message: "\"\(name.prefix(40))\" is not a quality flag; list some of \(allFlags) separated by commas, or none"))
            }
            kinds.insert(kind)
        }
        return kinds.isEmpty ? .failure(FlagListError(message: "no flag is listed; list some of \(allFlags) separated by commas, or none")) : .success(kinds)
    }

    struct FlagListError: Error {
        var message: String
    }
}

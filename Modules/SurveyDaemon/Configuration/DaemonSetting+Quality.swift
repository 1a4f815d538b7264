import Validation

/// The data-quality settings (`doc/data-quality.md` explains each default).
extension DaemonSetting {
    static let quality: [DaemonSetting] = [
        DaemonSetting(
            \.quality.measure, key: "dataQuality", variable: "SURVEYD_DATA_QUALITY",
            kind: .choice(QualityConfiguration.Switch.names), default: .on,
            doc: "`on`: each stage's paradata (times, taps, Back) is measured, its quality flags judged when it completes, and both sent with its upload as `Survey-Paradata` and `Survey-Quality`; `off`: nothing is measured (see `data-quality.md`)"),
        DaemonSetting(
            \.quality.flags, key: "qualityFlags", variable: "SURVEYD_QUALITY_FLAGS",
            kind: .text(valueName: "list", accepts: "some of `speeding,straight_lining,rapid_repeat,burst,mechanical` separated by commas, or `none`", check: checkQualityFlags),
            default: QualityConfiguration.allFlags,
            doc: "the quality flags judged; a flag left out is never raised"),
        DaemonSetting(
            \.quality.msPerWord, key: "qualityReadingMsPerWord", variable: "SURVEYD_QUALITY_READING_MS_PER_WORD",
            kind: .wholeNumber(.from(0, to: 2000), valueName: "ms"), default: QualityRules().msPerWord,
            doc: "`speeding`: reading time per word of a question in its floor (100: 600 words a minute)"),
        DaemonSetting(
            \.quality.minimumChoiceMs, key: "qualityMinimumChoiceMs", variable: "SURVEYD_QUALITY_MINIMUM_CHOICE_MS",
            kind: .wholeNumber(.from(0, to: 60_000), valueName: "ms"), default: QualityRules().minimumChoiceMs,
            doc: "`speeding`: the least time a choice (score, options) takes besides reading"),
        DaemonSetting(
            \.quality.minimumEntryMs, key: "qualityMinimumEntryMs", variable: "SURVEYD_QUALITY_MINIMUM_ENTRY_MS",
            kind: .wholeNumber(.from(0, to: 60_000), valueName: "ms"), default: QualityRules().minimumEntryMs,
            doc: "`speeding`: the least time a typed answer (text, number) takes besides reading and its characters"),
        DaemonSetting(
            \.quality.msPerCharacter, key: "qualityTypingMsPerCharacter", variable: "SURVEYD_QUALITY_TYPING_MS_PER_CHARACTER",
            kind: .wholeNumber(.from(0, to: 2000), valueName: "ms"), default: QualityRules().msPerCharacter,
            doc: "`speeding`: typing time per character of a typed answer in its floor"),
        DaemonSetting(
            \.quality.speedingSharePercent, key: "qualitySpeedingPercent", variable: "SURVEYD_QUALITY_SPEEDING_PERCENT",
            kind: .wholeNumber(.from(1, to: 100), valueName: "percent"), default: Int(QualityRules().speedingShare * 100),
            doc: "`speeding`: the share of a stage's timed answers (3 or more) that must be under their floor"),
        DaemonSetting(
            \.quality.straightLineRun, key: "qualityStraightLineRun", variable: "SURVEYD_QUALITY_STRAIGHT_LINE_RUN",
            kind: .wholeNumber(.from(2, to: 1000)), default: QualityRules().straightLineRun,
            doc: "`straight_lining`: consecutive score or single-choice questions (3 or more options) answered at the same position"),
        DaemonSetting(
            \.quality.repeatWindowSeconds, key: "qualityRepeatWindowSeconds", variable: "SURVEYD_QUALITY_REPEAT_WINDOW",
            kind: .wholeNumber(.from(1, to: 86_400), valueName: "seconds"), default: QualityRules().repeatWindowSeconds,
            doc: "`rapid_repeat`: how soon after the previous completion of the same stage on this kiosk a start counts"),
        DaemonSetting(
            \.quality.repeatSharePercent, key: "qualityRepeatPercent", variable: "SURVEYD_QUALITY_REPEAT_PERCENT",
            kind: .wholeNumber(.from(1, to: 100), valueName: "percent"), default: Int(QualityRules().repeatShare * 100),
            doc: "`rapid_repeat`: the share of the answers both gave (3 or more) that must be the same"),
        DaemonSetting(
            \.quality.burstWindowSeconds, key: "qualityBurstWindowSeconds", variable: "SURVEYD_QUALITY_BURST_WINDOW",
            kind: .wholeNumber(.from(1, to: 86_400), valueName: "seconds"), default: QualityRules().burstWindowSeconds,
            doc: "`burst`: the window completions on this kiosk are counted in"),
        DaemonSetting(
            \.quality.handoverSeconds, key: "qualityHandoverSeconds", variable: "SURVEYD_QUALITY_HANDOVER",
            kind: .wholeNumber(.from(0, to: 3600), valueName: "seconds"), default: QualityRules().handoverSeconds,
            doc: "`burst`: the least time between two people at the kiosk besides their reading"),
        DaemonSetting(
            \.quality.mechanicalCVPermille, key: "qualityMechanicalPermille", variable: "SURVEYD_QUALITY_MECHANICAL_PERMILLE",
            kind: .wholeNumber(.from(1, to: 1000), valueName: "permille"), default: QualityRules().mechanicalCVPermille,
            doc: "`mechanical`: times between answers (5 or more) whose coefficient of variation is below this, in thousandths, are too regular for a hand"),
    ]

    static func checkQualityFlags(_ text: String) -> String? {
        switch QualityConfiguration.flags(text) {
        case .success: nil
        case .failure(let error): error.message
        }
    }
}

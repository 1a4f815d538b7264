import Foundation
import Kiosk

/// `kioskSurveys`: the surveys staff may switch the kiosk to, e.g.
/// `common=Health survey,shop=ko:매장 설문|en:Shop survey`. Each entry is a first stage, `=`,
/// and its title: one for every language, or one per language as `LANG:Title` separated by `|`.
enum KioskSurveyList {
    /// The list; the error names the entry and what is wrong with it.
    static func parse(_ text: String) throws(KioskSurveyListError) -> [KioskSurveyChoice] {
        var choices: [KioskSurveyChoice] = []
        let entries = text.split(separator: ",", omittingEmptySubsequences: false)
        for (index, raw) in entries.enumerated() {
            let entry = raw.trimmingCharacters(in: .whitespaces)
            let place = "entry \(index + 1) (\"\(entry.prefix(60))\")"
            guard let equals = entry.firstIndex(of: "=") else {
                throw KioskSurveyListError("\(place) has no `=`; write each survey as stage=Title, e.g. common=Health survey")
            }
            let stage = entry[..<equals].trimmingCharacters(in: .whitespaces)
            if let problem = DaemonSetting.checkStage(stage) { throw KioskSurveyListError("\(place): \(problem)") }
            guard !choices.contains(where: { $0.stage == stage }) else {
                throw KioskSurveyListError("\(place) lists stage \(stage) a second time; list each survey once")
            }
            let title = entry[entry.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !title.isEmpty else { throw KioskSurveyListError("\(place) has an empty title; give the title respondents see, e.g. \(stage)=Health survey") }
            var titles: [KioskLanguage: String] = [:]
            let perLanguage = title.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let tagged = perLanguage.allSatisfy { part in
                part.count > 3 && part.dropFirst(2).first == ":" && KioskLanguage(rawValue: String(part.prefix(2))) != nil
            }
            if tagged {
                for part in perLanguage { titles[KioskLanguage(rawValue: String(part.prefix(2)))!] = part.dropFirst(3).trimmingCharacters(in: .whitespaces) }
            } else {
                for language in KioskLanguage.allCases { titles[language] = title }
            }
            for value in titles.values {
                guard !value.isEmpty else { throw KioskSurveyListError("\(place) has an empty title; give the title respondents see, e.g. \(stage)=Health survey") }
                if let problem = DaemonSetting.checkTitle(value) { throw KioskSurveyListError("\(place): \(problem)") }
            }
            choices.append(KioskSurveyChoice(stage: stage, titles: titles))
        }
        return choices
    }
}

struct KioskSurveyListError: Error, Sendable {
    var message: String
    init(_ message: String) { self.message = message }
}
